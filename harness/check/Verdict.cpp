// Verdict derivation, herd7-format logs and JSON.
#include "check/Verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "litmus/Printer.hpp"

namespace ptxmm::check {

void finalizeVerdict(Verdict& v) {
  std::sort(v.states.begin(), v.states.end(), [](const StateResult& a, const StateResult& b) { return a.key < b.key; });
  v.positive = v.negative = 0;
  v.flags.clear();
  for (const auto& s : v.states) {
    (s.satisfies ? v.positive : v.negative) += s.executions;
    v.flags.insert(s.flags.begin(), s.flags.end());
  }
  v.undefined = v.flags.count("undefined") > 0;
  v.ok = outcome::validated(v.quant, v.positive, v.negative);
  v.observation = outcome::observe(v.positive, v.negative);
}

const char* kindName(litmus::Condition::Quant q) {
  switch (q) {
    case litmus::Condition::Quant::Exists: return "Allowed";
    case litmus::Condition::Quant::NotExists: return "Forbidden";
    case litmus::Condition::Quant::Forall: return "Required";
  }
  return "?";
}

const char* validationText(const Verdict& v) { return v.undefined ? "Undef" : v.ok ? "Ok" : "No"; }

std::pair<uint64_t, uint64_t> witnessCounts(const Verdict& v) {
  if (v.quant == litmus::Condition::Quant::NotExists) return {v.negative, v.positive};
  return {v.positive, v.negative};
}

Verdict makeVerdict(const litmus::Test& test, EngineResult result) {
  Verdict v;
  v.testName = test.name;
  v.file = test.file;
  v.quant = test.condition.quant;
  v.condition = litmus::printCondition(test.condition, litmus::PropStyle::Herd);
  v.states = std::move(result.states);
  v.countsAreExecutions = result.countsAreExecutions;
  v.forbiddenBy = std::move(result.forbiddenBy);
  v.status = result.status;
  v.message = std::move(result.message);
  // The engines mark executions in which no thread blocks with the internal flag "completes".
  bool complete = false;
  for (auto& s : v.states)
    complete =
        (s.flags.erase("completes") > 0 || (!s.flags.count("deadlock") && !s.flags.count("livelock"))) || complete;
  v.noCompleteExecution = !v.states.empty() && !complete;
  finalizeVerdict(v);
  return v;
}

std::string FindingReport::text() const {
  auto one = [](const WitnessEvent& e) {
    return e.instr.empty() ? e.label : fmt::format("P{} l.{} `{}`", e.srcThread, e.line, e.instr);
  };
  // Events of different loop iterations print alike: each text once.
  std::vector<std::string> items;
  for (const auto& group : groups) {
    std::string item;
    for (size_t k = 0; k < group.size(); ++k) item += (k ? " and " : "") + one(group[k]);
    if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
  }
  std::string out;
  for (size_t g = 0; g < items.size() && g < 3; ++g) out += (g ? "; " : "") + items[g];
  if (items.size() > 3) out += fmt::format("; and {} more", items.size() - 3);
  return out;
}

std::vector<FindingReport> findings(const Verdict& v) {
  std::vector<FindingReport> out;
  std::set<std::string> done;  // checks reported
  std::vector<std::pair<const StateResult*, const Witness*>> witnesses;
  for (const auto& s : v.states)
    if (s.witness) witnesses.emplace_back(&s, &*s.witness);
  for (const auto& s : v.states)
    for (const auto& [check, w] : s.flagWitness) witnesses.emplace_back(&s, &w);
  for (const auto& [sp, wp] : witnesses) {
    const StateResult& s = *sp;
    std::map<int, const WitnessEvent*> byId;
    for (const auto& e : wp->events) byId[e.id] = &e;
    for (const auto& f : wp->findings) {
      if (!s.flags.count(f.flag) || done.count(f.check)) continue;
      FindingReport r{f.flag, f.check, s.key, {}};
      std::set<std::pair<int, int>> seen;  // a symmetric relation lists each pair twice
      for (auto [a, b] : f.pairs) {
        if (!seen.insert({std::min(a, b), std::max(a, b)}).second) continue;
        if (byId.count(a) && byId.count(b))
          r.groups.push_back(a == b ? std::vector<WitnessEvent>{*byId[a]}
                                    : std::vector<WitnessEvent>{*byId[a], *byId[b]});
      }
      for (int e : f.events)
        if (byId.count(e)) r.groups.push_back({*byId[e]});
      if (r.groups.empty()) continue;
      done.insert(f.check);
      out.push_back(std::move(r));
    }
  }
  return out;
}

LivenessReport liveness(const Verdict& v) {
  LivenessReport r;
  r.deadlock = v.flags.count("deadlock") > 0;
  r.livelock = v.flags.count("livelock") > 0;
  if (r.hangs())
    r.verdict = "hangs";
  else if (v.flags.count("cut"))
    r.verdict = "bounded";
  for (const auto& f : findings(v))
    if (f.flag == "deadlock" || f.flag == "livelock") r.notes.push_back(f.flag + ": " + f.text());
  return r;
}

std::string livenessLine(const LivenessReport& r) {
  if (r.verdict == "live") return "Live (every thread terminates in every execution, under fair scheduling)";
  if (r.verdict == "bounded")
    return "Bounded (no hang found; a loop that is not a spin loop was cut at the unroll bound, raise --unroll)";
  std::string what = r.deadlock && r.livelock ? "deadlocks and spins forever"
                     : r.deadlock             ? "deadlocks (a wait that never completes)"
                                              : "spins forever (livelock)";
  std::string out = "Hangs: some execution " + what;
  for (const auto& n : r.notes) out += "; " + n;
  return out;
}

void printHerdLog(const Verdict& v, std::ostream& os, bool printTime, bool livenessAlways) {
  if (v.status != Status::Ok) return;  // herd7: no log for a test it could not finish
  // herdtools7 herd/top_herd.ml (the end of `run`) prints these lines in this order.
  os << "Test " << v.testName << " " << kindName(v.quant) << "\n";
  os << "States " << v.states.size() << "\n";
  for (const auto& s : v.states) os << s.key << "\n";
  os << validationText(v) << "\n";
  auto [wPos, wNeg] = witnessCounts(v);
  os << "Witnesses\n";
  os << "Positive: " << wPos << " Negative: " << wNeg << "\n";
  // herd's flags are a Flag.Map ordered by OCaml's compare: Undef (a constant constructor, printed
  // `*undef*`, lib/flag.ml) before every `Flag name`, those by name.
  if (v.undefined) os << "Flag *undef*\n";
  for (const auto& f : v.flags)
    if (f != "undefined") os << "Flag " << f << "\n";
  os << "Condition " << v.condition << "\n";
  os << "Observation " << v.testName << " " << toString(v.observation) << " " << v.positive << " " << v.negative
     << "\n";
  os << "Time " << v.testName << " " << (printTime ? fmt::format("{:.2f}", v.seconds) : std::string("0.00")) << "\n";
  os << "Hash=" << v.hash << "\n";
  // ptxmm's own lines, after the herd7 block: herd's log readers (tools/lexLog_tools.mll) skip every
  // line between a test's Hash line and the next `Test` line.
  if (v.noCompleteExecution) os << "# No complete execution: every execution deadlocks or spins forever\n";
  if (const LivenessReport live = liveness(v); livenessAlways || live.verdict != "live")
    os << "# Liveness: " << livenessLine(live) << "\n";
  if (!v.countsAreExecutions)
    os << "# Positive/Negative and Observation count final states, not executions; --count counts executions as "
          "herd7 does\n";
  for (const auto& f : findings(v))
    os << "# " << (f.check == f.flag ? f.flag : f.flag + " (" + f.check + ")") << ": " << f.text() << "  [state "
       << f.state << "]\n";
  if (!v.forbiddenBy.empty()) {
    std::string axioms;
    for (const auto& a : v.forbiddenBy) axioms += (axioms.empty() ? "" : ", ") + a;
    os << "# "
       << (v.quant == litmus::Condition::Quant::Forall ? "the violation of the condition" : "the condition's outcome")
       << " is forbidden by: " << axioms << "\n";
  }
}

std::string verdictJson(const Verdict& v, bool withWitnesses) {
  using nlohmann::json;
  json j;
  j["test"] = v.testName;
  j["file"] = v.file;
  j["hash"] = v.hash;
  j["model"] = v.model;
  j["engine"] = v.engine;
  j["condition"] = v.condition;
  j["status"] = statusName(v.status);
  if (!v.message.empty()) j["message"] = v.message;
  if (!v.note.empty()) j["note"] = v.note;
  if (v.status != Status::Ok) {
    // Not decided: no ok/observation/counts (they would read as a verdict); the partial states
    // found before the engine stopped are only counted.
    j["time"] = v.seconds;
    j["partialStates"] = v.states.size();
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  j["ok"] = v.ok;
  j["kind"] = kindName(v.quant);
  j["validation"] = validationText(v);
  j["positive"] = v.positive;
  j["negative"] = v.negative;
  j["countsAreExecutions"] = v.countsAreExecutions;
  j["observation"] = toString(v.observation);
  j["flags"] = v.flags;
  j["noCompleteExecution"] = v.noCompleteExecution;
  const LivenessReport live = liveness(v);
  j["liveness"] = {
      {"verdict", live.verdict}, {"deadlock", live.deadlock}, {"livelock", live.livelock}, {"notes", live.notes}};
  j["forbiddenBy"] = v.forbiddenBy;
  j["time"] = v.seconds;
  json fs = json::array();
  for (const auto& f : findings(v)) {
    json groups = json::array();
    for (const auto& g : f.groups) {
      json evs = json::array();
      for (const auto& e : g)
        evs.push_back({{"thread", e.srcThread}, {"line", e.line}, {"instruction", e.instr}, {"event", e.label}});
      groups.push_back(evs);
    }
    fs.push_back(
        {{"flag", f.flag}, {"check", f.check}, {"state", f.state}, {"instructions", groups}, {"text", f.text()}});
  }
  j["findings"] = fs;
  json states = json::array();
  for (const auto& s : v.states) {
    json js;
    js["state"] = s.key;
    js["satisfies"] = s.satisfies;
    js["executions"] = s.executions;
    js["flags"] = s.flags;
    if (withWitnesses && s.witness) {
      json w;
      json evs = json::array();
      for (const auto& e : s.witness->events)
        evs.push_back({{"id", e.id}, {"thread", e.thread}, {"kind", e.kind}, {"label", e.label}, {"value", e.value}});
      w["events"] = evs;
      json rels = json::object();
      for (const auto& [name, pairs] : s.witness->relations) {
        json ps = json::array();
        for (auto [a, b] : pairs) ps.push_back({a, b});
        rels[name] = ps;
      }
      w["relations"] = rels;
      js["witness"] = w;
    }
    states.push_back(js);
  }
  j["states"] = states;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace ptxmm::check
