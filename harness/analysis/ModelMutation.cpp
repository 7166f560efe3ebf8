// Model mutation check (see ModelMutation.hpp).
#include "analysis/ModelMutation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

#include "check/Checker.hpp"
#include "litmus/Parser.hpp"
#include "support/Diagnostic.hpp"
#include "support/Parallel.hpp"

namespace ptxmm::analysis {

namespace {

namespace fs = std::filesystem;

bool hasPrefix(const std::string& name, const std::vector<std::string>& prefixes) {
  for (const auto& p : prefixes)
    if (!p.empty() && name.rfind(p, 0) == 0) return true;
  return false;
}

void collectRules(const cat::ModelFile& file, const std::vector<std::string>& prefixes, std::vector<ModelRule>& checks,
                  std::vector<ModelRule>& defs, std::set<std::string>& seen) {
  for (const auto& in : file.instrs) {
    switch (in->kind) {
      case cat::InstrKind::Include:
        if (in->included) collectRules(*in->included, prefixes, checks, defs, seen);
        break;
      case cat::InstrKind::Check:
        if (in->name.empty()) break;
        if (in->checkKind == cat::CheckKind::Check || in->checkKind == cat::CheckKind::Undefined) {
          if (!seen.insert("check:" + in->name).second) break;
          checks.push_back(
              {in->name, in->checkKind == cat::CheckKind::Check ? ModelRule::Kind::Check : ModelRule::Kind::Undefined,
               in->loc});
        }
        break;
      case cat::InstrKind::Let:
      case cat::InstrKind::LetRec:
        for (const auto& b : in->bindings) {
          if (b.pat.tuple || b.pat.names.size() != 1) continue;
          const auto& n = b.pat.names[0];
          if (hasPrefix(n, prefixes) && seen.insert("def:" + n).second)
            defs.push_back({n, ModelRule::Kind::Definition, b.loc});
        }
        break;
      default: break;
    }
  }
}

/// Copy of `file` with the rule removed; `found` is set when something was removed.
std::shared_ptr<const cat::ModelFile> rewrite(const std::shared_ptr<const cat::ModelFile>& file, const ModelRule& rule,
                                              bool& found) {
  auto out = std::make_shared<cat::ModelFile>(*file);
  out->instrs.clear();
  for (const auto& in : file->instrs) {
    if (in->kind == cat::InstrKind::Include && in->included) {
      bool f = false;
      auto inc = rewrite(in->included, rule, f);
      if (f) {
        found = true;
        auto copy = std::make_shared<cat::Instr>(*in);
        copy->included = inc;
        out->instrs.push_back(copy);
        continue;
      }
    } else if (in->kind == cat::InstrKind::Check && rule.kind != ModelRule::Kind::Definition && in->name == rule.name &&
               (in->checkKind == cat::CheckKind::Check || in->checkKind == cat::CheckKind::Undefined)) {
      found = true;
      continue;  // the check is dropped
    } else if ((in->kind == cat::InstrKind::Let || in->kind == cat::InstrKind::LetRec) &&
               rule.kind == ModelRule::Kind::Definition) {
      bool hit = false;
      auto copy = std::make_shared<cat::Instr>(*in);
      for (auto& b : copy->bindings)
        if (!b.pat.tuple && b.pat.names.size() == 1 && b.pat.names[0] == rule.name) {
          auto empty = std::make_shared<cat::Expr>();
          empty->kind = cat::ExprKind::EmptySet;
          empty->loc = b.loc;
          b.expr = empty;
          hit = true;
        }
      if (hit) {
        found = true;
        out->instrs.push_back(copy);
        continue;
      }
    }
    out->instrs.push_back(in);
  }
  return out;
}

std::string normalise(const std::string& s) {
  std::string r;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)))
      r += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string joinSet(const std::set<std::string>& s) {
  std::string r;
  for (const auto& x : s) r += (r.empty() ? "" : ",") + x;
  return r.empty() ? "none" : r;
}

std::string escapeCell(const std::string& s) {
  std::string r;
  for (char c : s) r += c == '|' ? std::string("\\|") : std::string(1, c);
  return r;
}

}  // namespace

std::string toString(ModelRule::Kind k) {
  switch (k) {
    case ModelRule::Kind::Check: return "axiom";
    case ModelRule::Kind::Undefined: return "undefined_unless";
    case ModelRule::Kind::Definition: return "definition";
  }
  return "?";
}

std::vector<ModelRule> findRules(const cat::Model& model, const std::vector<std::string>& prefixes) {
  std::vector<ModelRule> checks, defs;
  std::set<std::string> seen;
  if (model.main) collectRules(*model.main, prefixes, checks, defs, seen);
  checks.insert(checks.end(), defs.begin(), defs.end());
  return checks;
}

cat::Model withoutRule(const cat::Model& model, const ModelRule& rule) {
  bool found = false;
  cat::Model m = model;
  if (model.main) m.main = rewrite(model.main, rule, found);
  if (!found)
    throw DiagnosticError(SourceLoc{model.main ? model.main->path : std::string("<model>"), 0, 0},
                          fmt::format("model has no {} named '{}'", toString(rule.kind), rule.name));
  return m;
}

std::string verdictDifference(const check::Verdict& a, const check::Verdict& b) {
  if (a.status != b.status)
    return fmt::format("status {} -> {}", a.status == check::Status::Ok ? "ok" : a.message,
                       b.status == check::Status::Ok ? "ok" : b.message);
  size_t i = 0, j = 0;
  while (i < a.states.size() || j < b.states.size()) {
    if (j == b.states.size() || (i < a.states.size() && a.states[i].key < b.states[j].key))
      return fmt::format("state '{}' disappears", a.states[i].key);
    if (i == a.states.size() || b.states[j].key < a.states[i].key)
      return fmt::format("state '{}' becomes reachable", b.states[j].key);
    if (a.states[i].flags != b.states[j].flags)
      return fmt::format("state '{}': flags {} -> {}", a.states[i].key, joinSet(a.states[i].flags),
                         joinSet(b.states[j].flags));
    ++i, ++j;
  }
  if (a.ok != b.ok) return fmt::format("{} -> {}", a.ok ? "Ok" : "No", b.ok ? "Ok" : "No");
  if (a.observation != b.observation)
    return fmt::format("observation {} -> {}", outcome::toString(a.observation), outcome::toString(b.observation));
  if (a.countsAreExecutions && b.countsAreExecutions) {
    for (size_t k = 0; k < a.states.size(); ++k)  // same keys, same order (checked above)
      if (a.states[k].executions != b.states[k].executions)
        return fmt::format("state '{}': executions {} -> {}", a.states[k].key, a.states[k].executions,
                           b.states[k].executions);
    if (a.positive != b.positive || a.negative != b.negative)
      return fmt::format("Positive/Negative {}/{} -> {}/{}", a.positive, a.negative, b.positive, b.negative);
  }
  return "";
}

std::vector<fs::path> prioritiseTests(const ModelRule& rule, const std::vector<fs::path>& tests) {
  struct Scored {
    int score;
    uintmax_t size;
    fs::path path;
  };
  std::string key = normalise(rule.name);
  // The words of the name ("mbarrier-uninitialized-use", "SCPerLocation"), three letters or more.
  std::vector<std::string> words;
  std::string cur;
  auto flush = [&] {
    if (cur.size() >= 3) words.push_back(normalise(cur));
    cur.clear();
  };
  for (size_t i = 0; i < rule.name.size(); ++i) {
    char c = rule.name[i];
    bool upper = std::isupper(static_cast<unsigned char>(c)) != 0;
    bool prevLower = i > 0 && std::islower(static_cast<unsigned char>(rule.name[i - 1])) != 0;
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      flush();
      continue;
    }
    if (upper && prevLower) flush();
    cur += c;
  }
  flush();
  std::vector<Scored> v;
  for (const auto& t : tests) {
    std::string text = readFile(t);
    auto expectPath = t;
    expectPath.replace_extension(".expect");
    std::string expect = readFile(expectPath);
    int score = 0;
    std::string all = normalise(expect) + " " + normalise(text);
    if (!key.empty() && all.find(key) != std::string::npos) score += 8;
    for (const auto& w : words)
      if (all.find(w) != std::string::npos) score += 1;
    if (rule.kind == ModelRule::Kind::Definition) {
      if (text.find("fence.proxy") != std::string::npos) score += 2;
      if (text.find("cp.async") != std::string::npos || text.find("try_cancel") != std::string::npos) score += 1;
    }
    std::error_code ec;
    uintmax_t size = fs::file_size(t, ec);
    v.push_back({score, ec ? 0 : size, t});
  }
  std::stable_sort(v.begin(), v.end(), [](const Scored& a, const Scored& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.size != b.size) return a.size < b.size;
    return a.path < b.path;
  });
  std::vector<fs::path> out;
  for (auto& s : v) out.push_back(std::move(s.path));
  return out;
}

std::vector<RuleCoverage> ruleCoverage(const cat::Model& model, const std::string& modelName,
                                       const std::vector<fs::path>& tests, const CoverageOptions& options) {
  std::vector<ModelRule> rules = findRules(model, options.prefixes);
  if (!options.only.empty()) {
    std::vector<ModelRule> kept;
    for (const auto& r : rules)
      if (std::find(options.only.begin(), options.only.end(), r.name) != options.only.end()) kept.push_back(r);
    rules = kept;
  }
  // Parse every test once; failures are recorded for every rule.
  std::map<std::string, litmus::Test> parsed;
  std::vector<std::string> parseErrors;
  std::vector<fs::path> good;
  for (const auto& t : tests) {
    auto r = litmus::tryParseFile(t.string());
    if (r.ok()) {
      parsed.emplace(t.string(), std::move(*r.test));
      good.push_back(t);
    } else {
      parseErrors.push_back(r.diagnostics.empty() ? t.string() + ": error: cannot parse" : r.diagnostics[0].str());
    }
  }
  // Originals are shared between rules (computed on demand, once), with the options they were
  // checked with (the mutant is checked with the same ones).
  struct Original {
    std::shared_ptr<const check::Verdict> verdict;
    check::CheckOptions opts;
  };
  std::mutex origMutex;
  std::map<std::string, Original> originals;
  check::CheckOptions co = options.check;
  co.witnesses = false;
  if (options.countExecutions) co.countExecutions = true;
  check::CheckOptions fallback = co;  // enum engine gave up: smt, states and flags only
  fallback.engine = check::Engine::Smt;
  fallback.countExecutions = false;

  std::vector<RuleCoverage> out(rules.size());
  std::vector<std::unique_ptr<check::Checker>> checkers(
      static_cast<size_t>(workerCount(rules.size(), std::max(1, options.jobs))));
  parallelFor(rules.size(), std::max(1, options.jobs), [&](size_t k, int w) {
    auto& checkerp = checkers[static_cast<size_t>(w)];
    if (!checkerp) checkerp = std::make_unique<check::Checker>();
    check::Checker& checker = *checkerp;
    {
      RuleCoverage& rc = out[k];
      rc.rule = rules[k];
      rc.errors = parseErrors;
      cat::Model mutant = withoutRule(model, rules[k]);
      for (const auto& path : prioritiseTests(rules[k], good)) {
        if (options.maxTries > 0 && rc.tried >= options.maxTries) break;
        if (static_cast<int>(rc.tests.size()) >= options.testsPerRule) break;
        const litmus::Test& test = parsed.at(path.string());
        std::shared_ptr<const check::Verdict> orig;
        check::CheckOptions opts = co;
        {
          std::lock_guard lock(origMutex);
          if (auto it = originals.find(path.string()); it != originals.end()) {
            orig = it->second.verdict;
            opts = it->second.opts;
          }
        }
        if (!orig) {
          auto v = checker.check(test, model, modelName, co);
          if (v.status != check::Status::Ok && co.engine == check::Engine::Enum && options.smtFallback) {
            opts = fallback;
            v = checker.check(test, model, modelName, opts);
          }
          orig = std::make_shared<const check::Verdict>(std::move(v));
          std::lock_guard lock(origMutex);
          originals.emplace(path.string(), Original{orig, opts});
        }
        ++rc.tried;
        if (options.progress) options.progress(rc.rule.name, rc.tried);
        if (orig->status != check::Status::Ok) {
          rc.errors.push_back(fmt::format("{}: original: {}", path.string(), orig->message));
          continue;
        }
        check::Verdict mv = checker.check(test, mutant, modelName, opts);
        if (mv.status != check::Status::Ok) {  // an error or a timeout is no verdict change
          rc.errors.push_back(fmt::format("{}: mutant: {}", path.string(), mv.message));
          continue;
        }
        std::string diff = verdictDifference(*orig, mv);
        if (!diff.empty()) rc.tests.push_back({path.string(), test.name, diff});
      }
    }
  });
  return out;
}

void printCoverageMarkdown(const std::vector<RuleCoverage>& coverage, const std::string& modelPath, std::ostream& os) {
  os << "| rule | kind | defined at | tests whose verdict changes without it | what changes (first test) |\n";
  os << "|---|---|---|---|---|\n";
  for (const auto& rc : coverage) {
    std::string loc = rc.rule.loc.line > 0 ? fmt::format("{}:{}", modelPath, rc.rule.loc.line) : modelPath;
    std::string tests;
    for (const auto& t : rc.tests) {
      std::string rel = t.path;
      tests += (tests.empty() ? "" : ", ") + fmt::format("[`{}`](../{})", t.name, rel);
    }
    if (rc.tests.empty()) tests = fmt::format("**dead / untested** (none of {} tests tried)", rc.tried);
    os << fmt::format("| `{}` | {} | `{}` | {} | {} |\n", rc.rule.name, toString(rc.rule.kind), loc, escapeCell(tests),
                      rc.tests.empty() ? std::string("—") : escapeCell(rc.tests.front().change));
  }
}

void printCoverageText(const std::vector<RuleCoverage>& coverage, std::ostream& os) {
  for (const auto& rc : coverage) {
    os << fmt::format("{} ({}, line {}): ", rc.rule.name, toString(rc.rule.kind), rc.rule.loc.line);
    if (rc.tests.empty()) {
      os << fmt::format("DEAD: no verdict changes in {} tests\n", rc.tried);
    } else {
      os << fmt::format("{} changed (of {} tried)\n", rc.tests.size(), rc.tried);
      for (const auto& t : rc.tests) os << "    " << t.name << ": " << t.change << "\n";
    }
    for (const auto& e : rc.errors) os << "    error: " << e << "\n";
  }
}

}  // namespace ptxmm::analysis
