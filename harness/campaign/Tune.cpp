// Mutation-score tuning.
#include "campaign/Tune.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <random>
#include <set>
#include <sstream>

#include "campaign/Campaign.hpp"
#include "campaign/Coverage.hpp"
#include "litmus/Parser.hpp"

namespace ptxmm::campaign {

using nlohmann::json;

const std::vector<TuneDim>& tuneSpace() {
  static const std::vector<TuneDim> dims = {
      {"groupsPerBlock", {1, 2, 4, 8}},
      {"stressWarpsPerBlock", {0, 1, 2, 4, 8}},
      {"memStressPct", {0, 50, 100}},
      {"memStressIterations", {16, 64, 256, 1024}},
      {"memStressPattern", {0, 1, 2, 3}},
      {"preStressPct", {0, 50, 100}},
      {"preStressIterations", {0, 8, 32, 128}},
      {"preStressPattern", {0, 1, 2, 3}},
      {"stressLineSize", {16, 64, 256, 1024}},
      {"stressTargetLines", {1, 2, 4, 8, 16}},
      {"stressAssignmentStrategy", {0, 1}},
      {"memStride", {16, 64, 256, 1024}},
      {"bankConflictLanes", {0, 8, 32}},
      {"bankConflictIterations", {64, 256}},
      {"bankConflictPattern", {0, 1, 2, 3}},
      {"barrierPct", {50, 100}},
      {"shufflePct", {0, 100}},
      {"threadSkewNs", {0, 100, 1000, 10000}},
  };
  return dims;
}

namespace {

/// The configuration JSON of parameters (without the iteration count, as campaign runs store it).
json configJson(const runner::StressParams& p) {
  json j = runner::toJson(p);
  j.erase("iterations");
  return j;
}

/// Wilson score interval bound of k successes in n trials (z = 1.96).
double wilsonUpper(int k, int n) {
  if (n == 0) return 1;
  const double z = 1.96, p = static_cast<double>(k) / n, d = 1 + z * z / n;
  return (p + z * z / (2.0 * n) + z * std::sqrt(p * (1 - p) / n + z * z / (4.0 * n * n))) / d;
}

bool better(const ConfigScore& a, const ConfigScore& b) {
  if (a.score() != b.score()) return a.score() > b.score();
  return a.deathRate() > b.deathRate();
}

}  // namespace

ConfigScore scoreOf(Store& store, int64_t config) {
  ConfigScore s;
  s.config = config;
  const ConfigRow row = store.config(config);
  s.stoppedEarly = row.stoppedEarly;
  std::map<int64_t, TestRow> mutants;
  for (auto& m : store.tests("mutant")) mutants[m.id] = m;
  // A mutant this device cannot run (the generator refuses it, or it needs another architecture: its
  // runs end "skipped" whatever the parameters) cannot be killed here: it is counted apart, not as a
  // survivor.
  for (int64_t id : notRunnableMutants(store))
    if (mutants.count(id) > 0) {
      ++s.notRunnable[mutants[id].mclass];
      mutants.erase(id);
    }
  s.killable = static_cast<int>(mutants.size());
  std::set<int64_t> killed, evaluated;
  for (const auto& r : store.runs("tune", config)) {
    if (!isFinished(r.status)) continue;
    auto it = mutants.find(r.test);
    if (it == mutants.end()) continue;
    evaluated.insert(r.test);
    // A mutant with several runs (more instances for a survivor) is killed once, by any of them.
    const bool kill = r.targetSeen > 0 && killed.insert(r.test).second;
    s.targetInstances += static_cast<uint64_t>(r.targetSeen);
    s.seconds += r.seconds;
    for (auto* m : {&s.byClass[it->second.mclass], &s.byMutation[it->second.mutation]}) {
      m->targetInstances += static_cast<uint64_t>(r.targetSeen);
      m->seconds += r.seconds;
      if (kill) ++m->killed;
    }
  }
  for (const auto& [id, m] : mutants) {
    ++s.byClass[m.mclass].killable;
    ++s.byMutation[m.mutation].killable;
  }
  s.killed = static_cast<int>(killed.size());
  s.evaluated = static_cast<int>(evaluated.size());
  return s;
}

std::vector<std::pair<std::string, double>> parameterImportance(Store& store) {
  std::vector<std::pair<std::string, double>> out;
  std::vector<std::pair<json, double>> scored;
  for (const auto& c : store.configs())
    if (c.score && !c.stoppedEarly) scored.emplace_back(c.params, *c.score);
  for (const auto& dim : tuneSpace()) {
    std::map<int64_t, std::pair<double, int>> byValue;
    for (const auto& [p, s] : scored) {
      auto& e = byValue[p.value(dim.name, int64_t{0})];
      e.first += s;
      ++e.second;
    }
    if (byValue.size() < 2) {
      out.emplace_back(dim.name, 0.0);
      continue;
    }
    double lo = 1e9, hi = -1e9;
    for (const auto& [v, e] : byValue) {
      lo = std::min(lo, e.first / e.second);
      hi = std::max(hi, e.first / e.second);
    }
    out.emplace_back(dim.name, hi - lo);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

int tune(Store& store, Backend& backend, const TuneOptions& o, std::ostream& out, std::ostream& err) {
  const auto mutants = store.tests("mutant");
  if (mutants.empty()) {
    err << store.path() << ": error: no mutants in the store: `ptxmm campaign run --mutants` generates them "
        << "from the suite (fence necessity needs the checker)\n";
    return 2;
  }
  std::mt19937_64 rng(o.seed);
  const double t0 = now();
  double deviceSeconds = 0;
  auto spent = [&] { return std::max(now() - t0, deviceSeconds); };
  const std::string me = workerName();
  std::optional<ConfigScore> best;
  int tried = 0, early = 0;

  // Evaluates one configuration (or takes its stored score when it was evaluated before).
  auto evaluate = [&](const runner::StressParams& p, const std::string& origin) -> std::optional<ConfigScore> {
    try {
      runner::checkParams(p);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    const int64_t id = store.addConfig(configJson(p), origin);
    if (store.config(id).score) return scoreOf(store, id);
    // Mutants this device cannot run are left out once a run of them was skipped.
    const std::set<int64_t> skipped = notRunnableMutants(store);
    std::vector<TestRow> order;
    for (const auto& m : mutants)
      if (skipped.count(m.id) == 0) order.push_back(m);
    std::shuffle(order.begin(), order.end(), rng);
    int killed = 0, n = 0;
    bool stopped = false;
    for (const auto& m : order) {
      if (spent() >= o.budgetSeconds) {
        stopped = true;
        break;
      }
      const int64_t runId = store.addRun(m.id, id, o.iterations, "tune");
      auto existing = store.run(runId);
      if (existing && !isFinished(existing->status) && store.claimRun(runId, me, 3600)) {
        RunRow claimed = *store.run(runId);
        RunRow r = executeClaimed(store, backend, claimed, 3600);
        deviceSeconds += r.seconds;
        if (r.status == "skipped") continue;  // not runnable here: not killable either
        if (r.targetSeen > 0) ++killed;
      } else if (existing && existing->targetSeen > 0) {
        ++killed;
      }
      ++n;
      if (best && n >= 5) {
        // Stop when even killing every remaining mutant cannot beat the best, or when the kill rate's
        // 95% upper bound is below the best score.
        const double bestScore = best->score();
        const int total = static_cast<int>(order.size());
        if (static_cast<double>(killed + total - n) / total < bestScore || wilsonUpper(killed, n) < bestScore) {
          stopped = n < total;
          if (stopped) break;
        }
      }
    }
    if (n == 0) return std::nullopt;  // the budget ended before a single run: nothing to score
    ConfigScore s = scoreOf(store, id);
    s.stoppedEarly = stopped;
    store.setConfigScore(id, s.score(), s.killed, s.killable, s.deathRate(), s.seconds, stopped);
    ++tried;
    if (stopped) ++early;
    out << "config " << id << " (" << origin << "): killed " << s.killed << "/" << s.killable << " (evaluated "
        << s.evaluated << (stopped ? ", stopped early" : "") << "), death rate " << std::scientific
        << std::setprecision(2) << s.deathRate() << "/s" << std::defaultfloat << "\n";
    return s;
  };
  auto consider = [&](const std::optional<ConfigScore>& s) {
    if (s && !s->stoppedEarly && (!best || better(*s, *best))) best = s;
  };

  if (o.evaluateOnly) {
    const int64_t id = store.addConfig(configJson(o.base), "evaluate");
    const ConfigScore before = scoreOf(store, id);
    std::set<int64_t> done, spinning;  // killed already or not runnable here; hanging
    for (const auto& r : store.runs("tune", id)) {
      if (r.targetSeen > 0) done.insert(r.test);
      // The watchdog ended it, or most of its instances spun to the bound: more instances would spin longer.
      if (r.status == "timed-out" || (r.instances > 0 && 2 * r.timedOut > r.instances)) spinning.insert(r.test);
    }
    for (int64_t m : notRunnableMutants(store)) done.insert(m);
    int hanging = 0;
    for (int64_t m : spinning) hanging += done.insert(m).second ? 1 : 0;
    int ran = 0;
    for (const auto& m : mutants) {
      if (done.count(m.id) > 0) continue;
      if (spent() >= o.budgetSeconds) {
        out << "evaluate: the budget ended with mutants left to run (run it again to go on)\n";
        break;
      }
      const int64_t runId = store.addRun(m.id, id, o.iterations, "tune");
      if (store.claimRun(runId, me, 3600)) {
        RunRow r = executeClaimed(store, backend, *store.run(runId), 3600);
        deviceSeconds += r.seconds;
        ++ran;
      }
    }
    const ConfigScore s = scoreOf(store, id);
    store.setConfigScore(id, s.score(), s.killed, s.killable, s.deathRate(), s.seconds, false);
    if (!store.meta("tune.best")) store.setMeta("tune.best", std::to_string(id));
    std::set<int64_t> evaluated = evaluatedConfigs(store);  // shown beside default and tuned
    evaluated.insert(id);
    setEvaluatedConfigs(store, evaluated);
    out << "config " << id << " evaluated: " << ran << " run(s) of " << o.iterations << " instances; killed "
        << before.killed << " -> " << s.killed << " of " << s.killable << "; " << hanging
        << " survivor(s) not run again: the watchdog ended them or most of their instances hit the spin bound\n";
    printTuneSummary(store, out);
    if (store.meta("tune.best") != std::to_string(id)) printSurvivors(store, id, out);  // else the summary has them
    return 0;
  }

  // The defaults first: the baseline tuned parameters are compared with.
  store.setMeta("tune.default", std::to_string(store.addConfig(configJson(o.base), "tune-default")));
  consider(evaluate(o.base, "tune-default"));
  auto draw = [&] {
    runner::StressParams p = o.base;
    for (const auto& d : tuneSpace()) {
      std::uniform_int_distribution<size_t> pick(0, d.values.size() - 1);
      runner::setParam(p, d.name, d.values[pick(rng)]);
    }
    return p;
  };
  // Random search for half the budget, then refinement: move one parameter of the best configuration
  // to a neighbouring value at a time, keeping improvements; a neighbourhood without one sends the
  // search back to random draws.
  while (spent() < o.budgetSeconds / 2) consider(evaluate(draw(), "tune-random"));
  while (spent() < o.budgetSeconds) {
    bool improved = false;
    if (best) {
      const ConfigRow row = store.config(best->config);
      for (const auto& d : tuneSpace()) {
        if (spent() >= o.budgetSeconds) break;
        const int64_t cur = row.params.value(d.name, int64_t{0});
        auto at = std::find(d.values.begin(), d.values.end(), cur);
        for (int step : {-1, 1}) {
          if (at == d.values.end()) break;
          const auto idx = static_cast<int64_t>(at - d.values.begin()) + step;
          if (idx < 0 || idx >= static_cast<int64_t>(d.values.size())) continue;
          runner::StressParams p = runner::paramsFromJson(row.params);
          runner::setParam(p, d.name, d.values[static_cast<size_t>(idx)]);
          auto s = evaluate(p, "tune-refine");
          if (s && !s->stoppedEarly && better(*s, *best)) {
            best = s;
            improved = true;
            break;
          }
        }
        if (improved) break;
      }
    }
    if (!improved && spent() < o.budgetSeconds) consider(evaluate(draw(), "tune-random"));
  }
  out << "tune: " << tried << " configuration(s) evaluated (" << early << " stopped early) in " << std::fixed
      << std::setprecision(1) << spent() << " s" << std::defaultfloat << "\n";
  if (!best) {
    err << "tune: no configuration was evaluated in full within the budget\n";
    return 4;
  }
  store.setMeta("tune.best", std::to_string(best->config));
  if (!o.out.empty()) {
    json j = store.config(best->config).params;
    j.erase("seed");
    std::ofstream f(o.out);
    if (!f) {
      err << o.out << ": error: cannot write the best parameters\n";
      return 2;
    }
    f << j.dump(2) << "\n";
    out << "best parameters written to " << o.out << "\n";
  }
  printTuneSummary(store, out);
  return 0;
}

std::set<int64_t> evaluatedConfigs(Store& store) {
  std::set<int64_t> ids;
  std::istringstream list(store.meta("tune.evaluated").value_or(""));
  for (std::string id; std::getline(list, id, ',');) ids.insert(std::stoll(id));
  return ids;
}

void setEvaluatedConfigs(Store& store, const std::set<int64_t>& ids) {
  std::string list;
  for (const int64_t id : ids) list += (list.empty() ? "" : ",") + std::to_string(id);
  store.setMeta("tune.evaluated", list);
}

void printSurvivors(Store& store, int64_t config, std::ostream& out) {
  std::map<int64_t, TestRow> mutants;
  for (auto& m : store.tests("mutant")) mutants[m.id] = m;
  std::map<std::string, std::vector<std::string>> byReason;  // "mutation: category" -> mutant names
  std::set<int64_t> killed, survivors;  // a mutant with several runs survives if none of them killed it
  for (const auto& r : store.runs("tune", config)) {
    if (r.targetSeen > 0) killed.insert(r.test);
    if (r.status == "ok" && mutants.count(r.test) > 0) survivors.insert(r.test);
  }
  // What the tests and the mutants (under any configuration) showed, by shape.
  ShapeIndex shapes;
  std::map<int64_t, std::pair<std::map<std::string, uint64_t>, uint64_t>> shown;  // test -> (states, instances)
  for (const char* batch : {"campaign", "tune"})
    for (const auto& r : store.runs(batch)) {
      if (r.status != "ok") continue;
      auto& [states, instances] = shown[r.test];
      for (const auto& [k, v] : r.states) states[k] += v;
      instances += r.instances;
    }
  for (const char* kind : {"test", "mutant"})
    for (const auto& t : store.tests(kind))
      if (auto pr = litmus::tryParseTest(t.text, t.file); pr.ok() && shown.count(t.id) > 0)
        shapes.add(*pr.test, t.name, shown[t.id].first, shown[t.id].second);
  for (const int64_t id : survivors) {
    if (killed.count(id) > 0) continue;
    const TestRow& m = mutants[id];
    std::string category = kUnexplained;
    if (auto pr = litmus::tryParseTest(m.text, m.file); pr.ok()) {
      ptx::Scope narrow{}, wide{};
      const UnseenState u = observedReason(*pr.test, m.name, m.target, shown[id].first,
                                           m.allowed.value_or(std::set<std::string>{}), shapes, narrow, wide);
      if (!u.category.empty()) category = u.category;
    }
    byReason[m.mutation + ": " + category].push_back(m.name);
  }
  if (byReason.empty()) return;
  out << "Surviving mutants of config " << config << " by reason (the target state never seen):\n";
  for (const auto& [reason, names] : byReason) {
    out << "  " << std::left << std::setw(52) << reason << std::right << std::setw(4) << names.size() << "  e.g. "
        << names.front();
    if (names.size() > 1) out << ", " << names[1];
    out << "\n";
  }
}

void printTuneSummary(Store& store, std::ostream& out) {
  std::optional<int64_t> def, best;
  if (auto d = store.meta("tune.default"); d && store.config(std::stoll(*d)).score) def = std::stoll(*d);
  if (auto b = store.meta("tune.best")) best = std::stoll(*b);
  if (!best) {
    out << "(no tuning run in this store)\n";
    return;
  }
  std::string device = "?";
  for (const auto& r : store.runs("tune", *best))
    if (r.device.contains("name")) device = r.device.value("name", "?") + " (sm_" + r.device.value("sm", "") + ")";
  out << "Mutation score on " << device << ":\n";
  auto line = [&](const std::string& what, const ConfigScore& s) {
    out << "  " << std::left << std::setw(22) << what << std::right << " killed " << s.killed << "/" << s.killable
        << " (" << std::fixed << std::setprecision(1) << 100 * s.score() << "%), death rate " << std::scientific
        << std::setprecision(2) << s.deathRate() << " target outcomes/s" << std::defaultfloat << "\n";
  };
  std::vector<std::pair<std::string, ConfigScore>> cols;
  // The search's start: the defaults, or the --params it was given.
  // Parameters compared as values (a store written before a parameter existed lacks its key).
  const json defaults = configJson(runner::StressParams{});
  auto isDefault = [&](int64_t id) { return configJson(runner::paramsFromJson(store.config(id).params)) == defaults; };
  auto startName = [&](int64_t id) { return isDefault(id) ? "default" : "start (--params)"; };
  if (def) cols.emplace_back(startName(*def), scoreOf(store, *def));
  // Configurations evaluated on their own (tune --evaluate), e.g. the defaults beside a tuned store's best.
  for (const int64_t c : evaluatedConfigs(store))
    if (c != *best && (!def || c != *def)) cols.emplace_back(isDefault(c) ? "default" : "evaluated", scoreOf(store, c));
  cols.emplace_back("tuned", scoreOf(store, *best));
  const auto& unrunnable = cols.back().second.notRunnable;
  if (!unrunnable.empty()) {
    out << "  not runnable on this device (not counted as killable):";
    for (const auto& [cls, n] : unrunnable) out << " " << cls << " " << n;
    out << "\n";
  }
  for (const auto& [name, s] : cols) {
    line(name + " (config " + std::to_string(s.config) + ")", s);
    for (const auto* group : {&s.byMutation, &s.byClass})
      for (const auto& [k, c] : *group) {
        ConfigScore t;
        t.killable = c.killable;
        t.killed = c.killed;
        t.targetInstances = c.targetInstances;
        t.seconds = c.seconds;
        line("  " + k + (group == &s.byMutation ? " mutants" : ""), t);
      }
  }
  printSurvivors(store, *best, out);
  out << "Parameter importance (spread of the mean score over the parameter's values):\n";
  for (const auto& [name, v] : parameterImportance(store))
    out << "  " << std::left << std::setw(26) << name << std::right << std::fixed << std::setprecision(3) << v
        << std::defaultfloat << "\n";
}

}  // namespace ptxmm::campaign
