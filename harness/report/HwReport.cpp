#include "report/HwReport.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"
#include "outcome/Observation.hpp"
#include "outcome/Result.hpp"
#include "outcome/State.hpp"
#include "ptxgen/Assemble.hpp"

namespace ptxmm::report {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

}  // namespace

Comparison compare(const runner::Histogram& hist, const std::set<std::string>& allowed) {
  Comparison c;
  std::set<std::string> all = allowed;
  for (const auto& [k, v] : hist.states) all.insert(k);
  for (const auto& k : all) {
    StateComparison row;
    row.state = k;
    row.allowed = allowed.count(k) > 0;
    auto it = hist.states.find(k);
    row.seen = it == hist.states.end() ? 0 : it->second;
    if (!row.allowed && row.seen > 0) ++c.forbiddenSeen;
    if (row.allowed && row.seen == 0) ++c.allowedNeverSeen;
    c.rows.push_back(row);
  }
  return c;
}

bool satisfies(const litmus::Test& test, const std::string& key) {
  const outcome::StateSpec spec = outcome::makeStateSpec(test);
  return spec.satisfies(spec.values(key));
}

ConditionCounts conditionCounts(const litmus::Test& test, const runner::Histogram& hist) {
  ConditionCounts c;
  for (const auto& [k, v] : hist.states) (satisfies(test, k) ? c.positive : c.negative) += v;
  c.ok = outcome::validated(test.condition.quant, c.positive, c.negative);
  c.observation = outcome::toString(outcome::observe(c.positive, c.negative));
  return c;
}

void printLog(std::ostream& os, const litmus::Test& test, const runner::RunResult& r) {
  const auto& h = r.histogram;
  const bool forall = test.condition.quant == litmus::Condition::Quant::Forall;
  os << "Test " << test.name << (forall ? " Required" : " Allowed") << "\n";
  os << "Histogram (" << h.states.size() << " states)\n";
  for (const auto& [k, v] : h.states) {
    std::string count = std::to_string(v);
    if (count.size() < 6) count.resize(6, ' ');
    os << count << (satisfies(test, k) ? "*>" : ":>") << k << "\n";
  }
  auto cc = conditionCounts(test, h);
  os << (cc.ok ? "Ok" : "No") << "\n\nWitnesses\n";
  os << "Positive: " << cc.positive << ", Negative: " << cc.negative << "\n";
  os << "Condition " << litmus::printCondition(test.condition, litmus::PropStyle::Canonical) << " is "
     << (cc.ok ? "validated" : "NOT validated") << "\n";
  os << "Hash=" << litmus::testHash(test) << "\n";
  if (h.timedOut > 0)
    os << "Timed out: " << h.timedOut << " instance(s) exceeded a spin bound (deadlock or starvation)\n";
  if (h.other > 0) {
    os << "Other: " << h.other << " instance(s) with values outside the counted states; samples:\n";
    for (const auto& s : h.otherSamples) os << "  " << s << "\n";
  }
  os << "Observation " << test.name << " " << cc.observation << " " << cc.positive << " " << cc.negative << "\n";
  os << "Time " << test.name << " " << std::fixed << std::setprecision(2) << r.seconds << "\n";
  os.unsetf(std::ios::floatfield);
}

void printComparison(std::ostream& os, const std::string& testName, const std::string& model, const Comparison& c) {
  os << "Model " << model << " vs hardware for " << testName << ":\n";
  for (const auto& row : c.rows) {
    if (row.allowed && row.seen > 0)
      os << "  allowed & seen         " << row.seen << "  " << row.state << "\n";
    else if (row.allowed)
      os << "  allowed & never seen   0  " << row.state << "\n";
    else
      os << "  !!! FORBIDDEN & SEEN !!! " << row.seen << "  " << row.state << "\n";
  }
  if (c.forbiddenSeen > 0)
    os << "!!! " << testName << ": " << c.forbiddenSeen << " state(s) FORBIDDEN by model " << model
       << " were SEEN on hardware !!!\n";
}

std::vector<std::string> collectLitmusFiles(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const auto& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      std::vector<std::string> found;
      for (const auto& e : fs::recursive_directory_iterator(in, ec))
        if (e.is_regular_file() && e.path().extension() == ".litmus") found.push_back(e.path().string());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(in);
    }
  }
  return files;
}

bool hangs(const std::set<std::string>& stateFlags) {
  return stateFlags.count("deadlock") > 0 || stateFlags.count("livelock") > 0;
}

std::map<std::string, ModelStates> readModelStates(std::istream& in) {
  std::map<std::string, ModelStates> table;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '{') continue;
    auto j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.contains("hash") || !j.contains("states")) continue;
    if (outcome::parseStatus(j.value("status", std::string())) != outcome::Status::Ok) continue;
    // A state set cut at the unrolling bound is not the allowed set: no comparison for that test.
    const auto flags = j.value("flags", std::vector<std::string>{});
    if (std::find(flags.begin(), flags.end(), outcome::kCutFlag) != flags.end()) continue;
    ModelStates ms;
    ms.model = j.value("model", std::string("model"));
    for (const auto& st : j["states"]) {
      ms.allowed.insert(st.value("state", std::string()));
      if (hangs(st.value("flags", std::set<std::string>{}))) ms.hanging.insert(st.value("state", std::string()));
    }
    table[j["hash"].get<std::string>()] = std::move(ms);
  }
  return table;
}

std::map<std::string, ModelStates> readModelStatesFile(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error(path + ": error: cannot read the --model-states file");
  return readModelStates(f);
}

int runCampaign(const CampaignOptions& opt, std::ostream& out, std::ostream& err) {
  const auto files = collectLitmusFiles(opt.inputs);
  if (files.empty()) {
    err << "ptxmm run: no litmus files given\n";
    return 2;
  }
  if (!opt.kernelPtx.empty() && files.size() != 1) {
    err << "ptxmm run: --kernel-ptx " << opt.kernelPtxFile << " replaces one test's kernel, but " << files.size()
        << " tests were given\n";
    return 2;
  }
  runner::DeviceInfo dev;  // from the first test's process (the parent never initialises CUDA)
  json results = json::array();
  bool badInput = false, forbidden = false, anyRan = false;
  if (!opt.oracle) out << "(no model comparison: the checker is not available in this build)\n";
  for (const auto& file : files) {
    litmus::ParseResult pr = litmus::tryParseFile(file);
    if (!pr.ok()) {
      for (const auto& d : pr.diagnostics) err << d.str() << "\n";
      badInput = true;
      continue;
    }
    const litmus::Test& test = *pr.test;
    json jr{{"test", test.name}, {"file", file}, {"hash", litmus::testHash(test)}};
    runner::RunResult r;
    ptxgen::Kernel kernel;
    std::vector<std::vector<int64_t>> candidates;
    std::optional<ModelStates> model;
    std::string modelError;
    try {
      kernel = ptxgen::generate(
          test,
          runner::kernelShape(opt.params, opt.archOverride.empty() ? ptxgen::requiredArch(test) : opt.archOverride));
      if (opt.oracle) model = opt.oracle(test, modelError);
      std::vector<std::string> extra;
      if (model) extra.assign(model->allowed.begin(), model->allowed.end());
      candidates = runner::candidateValues(test, kernel, extra);
      if (!opt.kernelPtx.empty()) {
        // The same layout (parameters, result slots, locations) is assumed: only the module text changes.
        kernel.ptx = opt.kernelPtx;
        kernel.notes.push_back("the kernel is " + opt.kernelPtxFile + " (--kernel-ptx), not the generated one");
        jr["kernelPtx"] = opt.kernelPtxFile;
        out << "% kernel replaced by " << opt.kernelPtxFile << " (--kernel-ptx) %\n";
      }
      runner::DeviceInfo d;
      r = runner::runKernelIsolated(kernel, opt.params, candidates, d);
      if (!dev.available && d.available) dev = d;
    } catch (const DiagnosticError& e) {
      err << e.diagnostic().str() << "\n";
      r.status = runner::RunResult::Status::Skipped;
      r.reason = e.diagnostic().str();
    }
    out << "% Results for " << file << " %\n";
    jr["status"] = runner::statusName(r.status);
    jr["reason"] = r.reason;
    if (r.status == runner::RunResult::Status::Ok) {
      anyRan = true;
      printLog(out, test, r);
      auto cc = conditionCounts(test, r.histogram);
      const double ips = r.seconds > 0 ? static_cast<double>(r.instances) / r.seconds : 0;
      out << "Rate " << test.name << " " << std::scientific << std::setprecision(3) << ips << " instances/s, "
          << (r.seconds > 0 ? static_cast<double>(cc.positive) / r.seconds : 0.0) << " condition outcomes/s ("
          << r.launches << " launches of " << r.instances / std::max<uint64_t>(1, r.launches) << " instances)\n";
      out.unsetf(std::ios::floatfield);
      json hist = json::object();
      for (const auto& [k, v] : r.histogram.states) hist[k] = v;
      jr["histogram"] = hist;
      jr["other"] = r.histogram.other;
      jr["otherSamples"] = r.histogram.otherSamples;
      jr["timedOut"] = r.histogram.timedOut;
      jr["instances"] = r.instances;
      jr["launches"] = r.launches;
      jr["columns"] = r.columns;
      jr["seconds"] = r.seconds;
      jr["instancesPerSecond"] = ips;
      jr["condition"] = litmus::printCondition(test.condition, litmus::PropStyle::Canonical);
      jr["positive"] = cc.positive;
      jr["negative"] = cc.negative;
      jr["observation"] = cc.observation;
      jr["positivePerSecond"] = r.seconds > 0 ? static_cast<double>(cc.positive) / r.seconds : 0.0;
      json bindings = json::array();
      for (const auto& b : kernel.bindings)
        bindings.push_back(json{{"location", kernel.globals.at(static_cast<size_t>(b.globalLoc)).name},
                                {"proxy", std::string(ptx::toString(b.proxy))},
                                {"param", b.param}});
      jr["kernel"] = json{{"arch", kernel.arch},
                          {"ptxVersion", kernel.ptxVersion},
                          {"blockDim", kernel.blockDim},
                          {"clusterDim", kernel.clusterDim},
                          {"clustered", kernel.clustered},
                          {"slotsPerCta", kernel.slotsPerCta},
                          {"roles", kernel.roles},
                          {"dependentEntry", kernel.dependentEntry},
                          {"primaryRoles", kernel.primaryRoles},
                          {"sharedBytes", kernel.sharedBytes},
                          {"bankConflictLanes", kernel.bankConflictLanes},
                          {"bindings", bindings},
                          {"tensorMaps", runner::tensorMapsJson(kernel)},
                          {"notes", kernel.notes}};
      if (model) {
        Comparison c = compare(r.histogram, model->allowed);
        printComparison(out, test.name, model->model, c);
        json rows = json::array();
        for (const auto& row : c.rows)
          rows.push_back(json{{"state", row.state}, {"allowed", row.allowed}, {"seen", row.seen}});
        jr["model"] = json{{"name", model->model},
                           {"comparison", rows},
                           {"forbiddenSeen", c.forbiddenSeen},
                           {"allowedNeverSeen", c.allowedNeverSeen}};
        if (c.forbiddenSeen > 0) forbidden = true;
      } else if (opt.oracle) {
        out << "(no model verdict for " << test.name << ": " << modelError << ")\n";
      }
    } else {
      out << "Test " << test.name << " " << runner::statusName(r.status) << ": " << r.reason << "\n";
      if (r.status == runner::RunResult::Status::TimedOut) anyRan = true;
    }
    out << "\n";
    out.flush();
    results.push_back(jr);
  }
  if (!dev.available) dev = runner::queryDevice();
  if (!opt.jsonOut.empty()) {
    json doc{
        {"tool", "ptxmm run"}, {"device", dev.toJson()}, {"params", runner::toJson(opt.params)}, {"results", results}};
    std::ofstream f(opt.jsonOut);
    if (!f) {
      err << opt.jsonOut << ": error: cannot write JSON results\n";
      return 2;
    }
    f << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
  if (forbidden) return 1;
  if (badInput) return 2;
  if (!anyRan) return 4;
  return 0;
}

}  // namespace ptxmm::report
