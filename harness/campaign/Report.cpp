// Compare, merge and the HTML report.
#include "campaign/Report.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "campaign/Coverage.hpp"
#include "campaign/Tune.hpp"
#include "support/Process.hpp"

namespace ptxmm::campaign {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

/// A test's states summed over its finished campaign runs, keyed by "hash name".
std::map<std::string, std::pair<std::string, std::map<std::string, uint64_t>>> observed(Store& s) {
  std::map<int64_t, TestRow> tests;
  for (auto& t : s.tests("test")) tests[t.id] = t;
  std::map<std::string, std::pair<std::string, std::map<std::string, uint64_t>>> out;
  for (const auto& t : tests) out[t.second.hash + " " + t.second.name].first = t.second.name;
  for (const auto& r : s.runs("campaign")) {
    if (r.status != "ok") continue;
    const auto& t = tests.at(r.test);
    auto& e = out[t.hash + " " + t.name];
    for (const auto& [k, v] : r.states) e.second[k] += v;
  }
  return out;
}

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string pct(double a, double b) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << (b == 0 ? 0.0 : 100.0 * a / b) << "%";
  return s.str();
}

std::string sci(double v) {
  std::ostringstream s;
  s << std::scientific << std::setprecision(2) << v;
  return s.str();
}

}  // namespace

int compareStores(Store& a, Store& b, std::ostream& out) {
  auto A = observed(a), B = observed(b);
  std::set<std::string> keys;
  for (const auto& [k, v] : A) keys.insert(k);
  for (const auto& [k, v] : B) keys.insert(k);
  int flagged = 0;
  out << "A: " << a.path() << "\nB: " << b.path() << "\n";
  for (const auto& key : keys) {
    auto ia = A.find(key), ib = B.find(key);
    const std::string name = ia != A.end() ? ia->second.first : ib->second.first;
    if (ia == A.end() || ib == B.end()) {
      out << "Test " << name << ": only in " << (ia == A.end() ? "B" : "A") << "\n";
      continue;
    }
    std::set<std::string> states;
    for (const auto& [k, v] : ia->second.second) states.insert(k);
    for (const auto& [k, v] : ib->second.second) states.insert(k);
    out << "Test " << name << "\n";
    out << "  " << std::setw(14) << "A"
        << " " << std::setw(14) << "B"
        << "  state\n";
    for (const auto& st : states) {
      auto ca = ia->second.second.count(st) ? ia->second.second.at(st) : 0;
      auto cb = ib->second.second.count(st) ? ib->second.second.at(st) : 0;
      std::string flag;
      if (ca > 0 && cb == 0) flag = "   <== only A";
      if (cb > 0 && ca == 0) flag = "   <== only B";
      if (!flag.empty()) ++flagged;
      out << "  " << std::setw(14) << ca << " " << std::setw(14) << cb << "  " << st << flag << "\n";
    }
  }
  out << flagged << " state(s) seen by one store only\n";
  return flagged;
}

int mergeStore(Store& out, Store& in) {
  int added = 0;
  out.transaction([&] {
    std::map<int64_t, int64_t> testId, configId;
    auto tests = in.tests();
    // Parents first (mutants refer to their test).
    std::stable_sort(tests.begin(), tests.end(), [](const TestRow& x, const TestRow& y) { return x.kind > y.kind; });
    for (auto t : tests) {
      const int64_t old = t.id;
      if (t.kind == "mutant") t.parent = testId[t.parent];
      testId[old] = out.addTest(t);
      if (t.hanging && !out.test(testId[old]).hanging) out.setHanging(testId[old], *t.hanging);
    }
    for (const auto& c : in.configs()) {
      configId[c.id] = out.addConfig(c.params, c.origin);
      if (c.score)
        out.setConfigScore(configId[c.id], *c.score, c.killed, c.killable, c.deathRate.value_or(0),
                           c.seconds.value_or(0), c.stoppedEarly);
    }
    for (auto r : in.runs()) {
      if (!isFinished(r.status)) continue;
      const int64_t id = out.addRun(testId.at(r.test), configId.at(r.config), r.iterations, r.batch);
      auto mine = out.run(id);
      if (mine && isFinished(mine->status)) continue;
      out.importResult(id, r);
      ++added;
    }
    for (const char* key : {"backend", "tune.best", "tune.default"})
      if (auto v = in.meta(key); v && !out.meta(key)) {
        if (std::string(key) == "backend")
          out.setMeta(key, *v);
        else
          out.setMeta(key, std::to_string(configId.at(std::stoll(*v))));
      }
    // Configurations evaluated on their own: the union, in this store's ids.
    if (in.meta("tune.evaluated")) {
      std::set<int64_t> ids = evaluatedConfigs(out);
      for (const int64_t id : evaluatedConfigs(in)) ids.insert(configId.at(id));
      setEvaluatedConfigs(out, ids);
    }
  });
  return added;
}

std::string base64(const std::string& bytes) {
  static const char* tbl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                       static_cast<uint8_t>(bytes[i + 2]);
    out += tbl[v >> 18];
    out += tbl[(v >> 12) & 63];
    out += tbl[(v >> 6) & 63];
    out += tbl[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    out += tbl[v >> 18];
    out += tbl[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8);
    out += tbl[v >> 18];
    out += tbl[(v >> 12) & 63];
    out += tbl[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

json plotData(Store& store) {
  json d;
  const SuiteCoverage cov = coverage(store);
  d["tests"] = json::array();
  for (const auto& t : cov.tests)
    d["tests"].push_back(
        json{{"name", t.name},
             {"weakPerSecond", t.seconds > 0 ? static_cast<double>(t.weak) / t.seconds : 0.0},
             {"instancesPerSecond", t.seconds > 0 ? static_cast<double>(t.instances) / t.seconds : 0.0},
             {"allowed", t.allowed.size()},
             {"seen", t.allowedSeen()}});
  // Per configuration: the mutation score and the allowed-state coverage of its runs.
  std::map<int64_t, TestRow> tests;
  for (auto& t : store.tests()) tests[t.id] = t;
  std::map<int64_t, std::pair<int64_t, int64_t>> cover;  // config -> (seen, allowed)
  for (const auto& r : store.runs()) {
    if (r.status != "ok") continue;
    cover[r.config].first += r.allowedSeen;
    cover[r.config].second += r.allowedTotal;
  }
  d["configs"] = json::array();
  for (const auto& c : store.configs()) {
    json e{{"id", c.id}, {"origin", c.origin}, {"params", c.params}};
    if (c.score) e["score"] = *c.score;
    if (c.deathRate) e["deathRate"] = *c.deathRate;
    e["stoppedEarly"] = c.stoppedEarly;
    auto it = cover.find(c.id);
    if (it != cover.end() && it->second.second > 0)
      e["coverage"] = static_cast<double>(it->second.first) / static_cast<double>(it->second.second);
    d["configs"].push_back(e);
  }
  d["tuneSpace"] = json::array();
  for (const auto& dim : tuneSpace()) d["tuneSpace"].push_back(dim.name);
  // Kills over time: tune runs in finishing order.
  d["kills"] = json::array();
  std::vector<RunRow> tune = store.runs("tune");
  std::sort(tune.begin(), tune.end(), [](const RunRow& a, const RunRow& b) { return a.finished < b.finished; });
  double t0 = tune.empty() ? 0 : tune.front().started;
  uint64_t killed = 0;
  std::set<int64_t> distinct;
  for (const auto& r : tune) {
    if (!isFinished(r.status)) continue;
    if (r.targetSeen > 0) {
      ++killed;
      distinct.insert(r.test);
    }
    d["kills"].push_back(json{{"t", r.finished - t0}, {"kills", killed}, {"distinct", distinct.size()}});
  }
  return d;
}

bool writeHtml(Store& store, const HtmlOptions& o, std::ostream& err) {
  const SuiteCoverage cov = coverage(store);
  // Plots.
  std::vector<std::pair<std::string, std::string>> images;  // caption, base64 PNG
  std::string plotNote;
  {
    const std::string script =
        o.script.empty() ? std::string(PTXMM_SOURCE_DIR) + "/scripts/campaign-plots.py" : o.script;
    const fs::path dir = fs::temp_directory_path() / ("ptxmm-plots-" + std::to_string(getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "data.json") << plotData(store).dump();
    ProcessOptions po;
    po.timeout = std::chrono::milliseconds(300000);
    const std::string python = !o.python.empty()                ? o.python
                               : fs::exists("/usr/bin/python3") ? "/usr/bin/python3"
                                                                : "python3";
    auto res = runProcess({python, script, (dir / "data.json").string(), dir.string()}, po);
    if (!res.ok()) {
      plotNote = "plots not produced: " + res.error();
      err << "campaign report: " << plotNote << "\n";
    } else {
      for (const auto& [file, caption] : std::vector<std::pair<std::string, std::string>>{
               {"weak-rate.png", "Weak outcomes per second per test"},
               {"coverage-vs-params.png", "Coverage and mutation score against each parameter"},
               {"kills.png", "Mutant kills over time (tuning)"}}) {
        std::ifstream f(dir / file, std::ios::binary);
        if (!f) continue;
        std::stringstream ss;
        ss << f.rdbuf();
        images.emplace_back(caption, base64(ss.str()));
      }
    }
    fs::remove_all(dir);
  }
  std::ofstream h(o.out);
  if (!h) {
    err << o.out << ": error: cannot write the report\n";
    return false;
  }
  std::set<std::string> devices;
  for (const auto& r : store.runs())
    if (r.device.contains("name") && !r.device.value("name", "").empty())
      devices.insert(r.device.value("name", "") + " (sm_" + r.device.value("sm", "") + ", driver " +
                     std::to_string(r.device.value("driverVersion", 0)) + ")");
  h << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ptxmm campaign " << esc(store.path())
    << "</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse;"
       "margin:1em 0}td,th{border:1px solid #bbb;padding:3px 8px;font-size:13px;text-align:left}th{background:#eee}"
       ".bad{background:#fbb;font-weight:bold}.ok{background:#dfd}.num{text-align:right}code{font-size:12px}"
       "img{max-width:100%;border:1px solid #ccc}</style></head><body>\n";
  h << "<h1>ptxmm hardware campaign</h1>\n<p>Store <code>" << esc(store.path()) << "</code>; device(s): ";
  for (const auto& d : devices) h << esc(d) << "; ";
  h << "</p>\n";
  // Summary.
  h << "<h2>Summary</h2><table><tr><th>tests</th><th>allowed-state coverage</th><th>forbidden &amp; seen</th>"
       "<th>mutants killed (any configuration)</th></tr><tr><td class=num>"
    << cov.tests.size() << "</td><td class=num>" << cov.allowedSeen << "/" << cov.allowed << " ("
    << pct(static_cast<double>(cov.allowedSeen), static_cast<double>(cov.allowed)) << ")</td><td class='num "
    << (cov.forbiddenSeen > 0 ? "bad" : "ok") << "'>" << cov.forbiddenSeen << "</td><td class=num>" << cov.mutantsKilled
    << "/" << cov.mutants << "</td></tr></table>\n";
  // Forbidden and seen.
  h << "<h2>Forbidden and seen</h2>\n";
  if (cov.forbiddenSeen == 0)
    h << "<p class=ok>None: no state the model forbids was seen.</p>\n";
  else {
    h << "<table><tr><th>test</th><th>state</th><th>count</th></tr>\n";
    for (const auto& t : cov.tests)
      for (const auto& [k, v] : t.forbiddenSeen)
        h << "<tr class=bad><td>" << esc(t.name) << "</td><td><code>" << esc(k) << "</code></td><td class=num>" << v
          << "</td></tr>\n";
    h << "</table>\n";
  }
  // Mutation score.
  h << "<h2>Mutation score</h2>\n";
  if (auto b = store.meta("tune.best")) {
    std::ostringstream txt;
    printTuneSummary(store, txt);
    h << "<pre>" << esc(txt.str()) << "</pre>\n";
    h << "<table><tr><th>config</th><th>origin</th><th>score</th><th>killed</th><th>death rate (target outcomes/s)</th>"
         "<th>stopped early</th></tr>\n";
    auto configs = store.configs();
    std::stable_sort(configs.begin(), configs.end(), [](const ConfigRow& x, const ConfigRow& y) {
      return x.score.value_or(-1) > y.score.value_or(-1);
    });
    int shown = 0;
    for (const auto& c : configs) {
      if (!c.score || shown++ >= 25) continue;
      h << "<tr><td>" << c.id << (std::to_string(c.id) == *b ? " (best)" : "") << "</td><td>" << esc(c.origin)
        << "</td><td class=num>" << pct(*c.score, 1) << "</td><td class=num>" << c.killed << "/" << c.killable
        << "</td><td class=num>" << sci(c.deathRate.value_or(0)) << "</td><td>" << (c.stoppedEarly ? "yes" : "")
        << "</td></tr>\n";
    }
    h << "</table>\n";
  } else {
    h << "<p>No tuning run in this store (<code>ptxmm campaign tune</code>).</p>\n";
  }
  // Coverage table.
  h << "<h2>Coverage per test</h2>\n<table><tr><th>test</th><th>status</th><th>allowed seen</th><th>coverage</th>"
       "<th>forbidden &amp; seen</th><th>mutants killed</th><th>instances</th><th>weak/s</th></tr>\n";
  for (const auto& t : cov.tests) {
    h << "<tr><td>" << esc(t.name) << "</td><td>" << esc(t.status) << "</td><td class=num>"
      << (t.hasModel ? std::to_string(t.allowedSeen()) + "/" + std::to_string(t.allowed.size()) : "no model")
      << "</td><td class=num>" << pct(static_cast<double>(t.allowedSeen()), static_cast<double>(t.allowed.size()))
      << "</td><td class='num " << (t.forbiddenSeen.empty() ? "" : "bad") << "'>" << t.forbiddenSeen.size()
      << "</td><td class=num>" << t.mutantsKilled << "/" << t.mutants << "</td><td class=num>" << t.instances
      << "</td><td class=num>" << sci(t.seconds > 0 ? static_cast<double>(t.weak) / t.seconds : 0) << "</td></tr>\n";
  }
  h << "</table>\n";
  // Unseen states.
  h << "<h2>Allowed states never seen, by reason</h2>\n<table><tr><th>reason</th><th>states</th></tr>\n";
  for (const auto& [c, n] : cov.categories) h << "<tr><td>" << esc(c) << "</td><td class=num>" << n << "</td></tr>\n";
  h << "</table>\n<table><tr><th>test</th><th>state</th><th>reason</th><th>evidence</th></tr>\n";
  for (const auto& t : cov.tests)
    for (const auto& u : t.unseen)
      h << "<tr><td>" << esc(t.name) << "</td><td><code>" << esc(u.state) << "</code></td><td"
        << (u.category == std::string(kUnexplained) ? " class=bad" : "") << ">" << esc(u.category) << "</td><td>"
        << esc(u.evidence) << "</td></tr>\n";
  h << "</table>\n";
  // Plots.
  h << "<h2>Plots</h2>\n";
  if (!plotNote.empty()) h << "<p>" << esc(plotNote) << "</p>\n";
  for (const auto& [caption, data] : images)
    h << "<h3>" << esc(caption) << "</h3>\n<img alt=\"" << esc(caption) << "\" src=\"data:image/png;base64," << data
      << "\">\n";
  h << "</body></html>\n";
  return static_cast<bool>(h);
}

}  // namespace ptxmm::campaign
