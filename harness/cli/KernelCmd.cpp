// ptxmm extract / ptxmm check-kernel: read a compiled kernel (a PTX module, `nvcc -ptx [-lineinfo]`), extract
// the litmus test of each kernel's synchronisation skeleton (extract/), check it against the model and report
// the findings in kernel terms: the PTX lines (and the CUDA source lines of `.loc`) of both sides of a race,
// of an undefined read, of a wait that never completes, and the cheapest verified repair mapped back to a PTX
// line (docs/kernels.md).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "analysis/KernelRepair.hpp"
#include "cat/Model.hpp"
#include "check/Check.hpp"
#include "check/Checker.hpp"
#include "check/Dot.hpp"
#include "check/Verdict.hpp"
#include "cli/Commands.hpp"
#include "cli/Options.hpp"
#include "extract/Extract.hpp"
#include "extract/Module.hpp"
#include "litmus/Parser.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::cli {

namespace {

namespace fs = std::filesystem;
using analysis::eventLocation;
using analysis::kernelClean;
using analysis::kernelFindings;
using analysis::RepairSite;
using nlohmann::json;

struct KernelArgs {
  std::string file;
  std::string kernel;
  std::string roles;
  int iterations = 0;
  std::vector<std::string> params;
  int block = 0;
  int cluster = 0;
  size_t maxThreads = 8;
  std::string outDir;
  // check-kernel
  std::string model = "ptx";
  bool json = false;
  std::string pictureDir;
  BudgetArgs budget;
  int maxEvents = 1000;
  bool noRepair = false;
};

void addExtractOptions(CLI::App* cmd, KernelArgs& a) {
  cmd->add_option("ptx", a.file, "the PTX module (nvcc -ptx [-lineinfo], cuobjdump -ptx)")->required();
  cmd->add_option("--kernel", a.kernel, "only this kernel (mangled .entry name; default every kernel)");
  cmd->add_option("--roles", a.roles,
                  "CTA-local thread ids (comma-separated) whose roles become litmus threads (default: every role)");
  cmd->add_option("--iterations", a.iterations,
                  "value of the kernel's integer parameters, e.g. the k-tile count that bounds the main loop "
                  "(default: two laps of the largest stage count)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--param", a.params, "kernel parameter NAME=VALUE (name, short name paramN or index)");
  cmd->add_option("--block", a.block, "threads per CTA (default .reqntid/.maxntid, else 128)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--cluster", a.cluster, "CTAs per cluster (default .reqnctapercluster, else 1)")
      ->check(CLI::Range(1, 16));
  cmd->add_option("--max-threads", a.maxThreads, "most litmus threads (roles) per test")->check(CLI::Range(1, 32));
  cmd->add_option("-o,--output", a.outDir, "directory for the litmus tests (default: a fresh temporary directory)");
}

/// The extraction options, or a usage error printed (false).
bool extractOptions(const KernelArgs& a, extract::ExtractOptions& o, const char* cmd) {
  o.kernel = a.kernel;
  o.iterations = a.iterations;
  o.block = a.block;
  o.cluster = a.cluster;
  o.maxThreads = a.maxThreads;
  try {
    if (!a.roles.empty()) {
      std::stringstream ss(a.roles);
      std::string item;
      while (std::getline(ss, item, ',')) o.roles.push_back(std::stoi(item));
    }
    for (const auto& p : a.params) {
      auto eq = p.find('=');
      if (eq == std::string::npos) throw std::invalid_argument(p);
      o.params[p.substr(0, eq)] = std::stoll(p.substr(eq + 1), nullptr, 0);
    }
  } catch (const std::exception&) {
    std::cerr << "ptxmm " << cmd << ": bad --roles or --param (expected ids 0,32 and NAME=VALUE)\n";
    return false;
  }
  return true;
}

fs::path outputDir(const KernelArgs& a) {
  if (!a.outDir.empty()) {
    fs::create_directories(a.outDir);
    return a.outDir;
  }
  fs::path base = fs::temp_directory_path() / fmt::format("ptxmm-extract-{}", static_cast<long>(::getpid()));
  fs::create_directories(base);
  return base;
}

/// Writes the test and its side table (litmus line → PTX line and source) beside it.
fs::path writeTest(const fs::path& dir, const extract::ExtractedTest& t) {
  fs::path p = dir / (t.name + ".litmus");
  std::ofstream(p) << t.text;
  json side = json::object();
  for (const auto& [line, s] : t.sites)
    side[std::to_string(line)] = {
        {"ptx_line", s.ptxLine},
        {"instruction", s.instruction},
        {"source", s.source ? json{{"file", s.source->file}, {"line", s.source->line}} : json()}};
  std::ofstream(dir / (t.name + ".sites.json")) << side.dump(1) << "\n";
  return p;
}

json sourceJson(const std::optional<extract::SourcePos>& s) {
  return s ? json{{"file", s->file}, {"line", s->line}} : json();
}

std::string where(const std::string& ptxFile, const extract::Site& s) {
  std::string w = fmt::format("{}:{}", fs::path(ptxFile).filename().string(), s.ptxLine);
  if (s.source) w += fmt::format(" ({}:{})", fs::path(s.source->file).filename().string(), s.source->line);
  return w;
}

std::string kindOf(const std::string& flag) {
  if (flag == "data-race" || flag == "undefined" || flag == "deadlock" || flag == "livelock") return flag;
  return "undefined";
}

struct KernelReport {
  json j;
  int status = 0;  // 0 clean, 1 findings, 2 error/undecided
};

KernelReport checkKernel(const extract::KernelExtract& ke, const KernelArgs& a, const fs::path& dir,
                         const cat::Model& model, const std::string& modelName, std::ostream& human) {
  KernelReport r;
  r.j = {
      {"name", ke.name}, {"status", "clean"}, {"message", ""}, {"tests", json::array()}, {"findings", json::array()}};
  auto error = [&](const std::string& status, const std::string& msg) {
    r.j["status"] = status;
    r.j["message"] = msg;
    r.status = 2;
    human << msg << "\n";
    return r;
  };
  if (!ke.test) return error("error", ke.error ? ke.error->str() : ke.name + ": extraction failed");
  const auto& t = *ke.test;
  fs::path path = writeTest(dir, t);
  r.j["tests"].push_back(path.string());
  auto parsed = litmus::tryParseTest(t.text, path.string());
  if (!parsed.ok()) {
    std::string msg;
    for (const auto& d : parsed.diagnostics) {
      const extract::Site* s = t.site(d.loc.line);
      msg += s ? fmt::format("{}:{}: error: {} (in `{}`; extracted test {})", a.file, s->ptxLine, d.message,
                             s->instruction, d.loc.str())
               : d.str();
      msg += "\n";
    }
    if (!msg.empty()) msg.pop_back();
    return error("error", msg);
  }
  check::CheckOptions co;
  co.engine = check::Engine::Smt;
  co.timeoutMs = a.budget.timeoutMs;
  co.memoryBytes = a.budget.memoryLimit(1);
  a.budget.limitSolverMemory(1);
  co.maxEvents = a.maxEvents;
  check::Checker checker;
  check::Verdict v = checker.check(*parsed.test, model, modelName, co);
  if (v.status != check::Status::Ok)
    return error(v.status == check::Status::Error ? "error" : "undecided",
                 fmt::format("{}: kernel {}: the extracted test {} could not be decided: {}", a.file, ke.name,
                             path.string(), v.message));
  if (v.flags.count("cut"))
    return error("undecided", fmt::format("{}: kernel {}: a loop of the extracted test {} was cut at the unroll bound",
                                          a.file, ke.name, path.string()));
  if (!a.pictureDir.empty()) {
    fs::create_directories(a.pictureDir);
    check::writeDotFiles(v, a.pictureDir, true);
  }
  auto identity = [](int line) { return line; };
  auto found = kernelFindings(v, t, identity);
  if (kernelClean(v, t, identity)) {
    human << fmt::format("{}: kernel {}: clean ({} litmus thread(s): {})\n", a.file, ke.name, t.roles.size(),
                         path.string());
    return r;
  }
  // The cheapest verified repair of the kernel (one search: it must clear every flag at once).
  json repair = json::array();
  std::string repairText;
  if (!a.noRepair) {
    if (auto kr = analysis::searchKernelRepair(t, found, model, modelName, co)) {
      bool same = std::all_of(kr->sites.begin(), kr->sites.end(),
                              [&](const RepairSite& s) { return s.instruction == kr->sites.front().instruction; });
      std::string at;
      for (const auto& rs : kr->sites) {
        json entry = {{"kind", kr->kind},
                      {"edit", kr->edit},
                      {"position", kr->position},
                      {"instruction", rs.instruction},
                      {"ptx_line", rs.site->ptxLine},
                      {"source", sourceJson(rs.site->source)}};
        if (!kr->cuda.empty()) entry["cuda"] = kr->cuda;
        if (rs.to) entry["to"] = {{"ptx_line", rs.to->ptxLine}, {"source", sourceJson(rs.to->source)}};
        repair.push_back(entry);
        if (rs.to)
          at += fmt::format("{}`{}` from {} to after {}", at.empty() ? "" : ", ", rs.instruction,
                            where(a.file, *rs.site), where(a.file, *rs.to));
        else
          at += (at.empty() ? "" : ", ") + (same ? "" : fmt::format("`{}` {} ", rs.instruction, kr->position)) +
                where(a.file, *rs.site);
      }
      repairText = same && kr->edit != "move"
                       ? fmt::format(" {} `{}` {} {}", kr->edit, kr->sites.front().instruction, kr->position, at)
                       : fmt::format(" {} {}", kr->edit, at);
      if (!kr->cuda.empty()) repairText += fmt::format(" (in CUDA `{}`)", kr->cuda);
    }
  }
  r.status = 1;
  r.j["status"] = "findings";
  for (const auto& f : found) {
    json sites = json::array();
    std::set<int> seen;
    std::vector<const extract::Site*> ss;
    for (const auto& g : f.groups)
      for (const auto& e : g) {
        const extract::Site* s = t.site(e.line);
        if (s == nullptr || !seen.insert(s->ptxLine).second) continue;
        ss.push_back(s);
        sites.push_back({{"ptx_line", s->ptxLine}, {"instruction", s->instruction}, {"source", sourceJson(s->source)}});
      }
    if (f.flag == "deadlock" || f.flag == "livelock") {
      // The arrivals and copies that would complete the phase the blocked waits wait for.
      std::set<std::string> locs;
      for (const auto& g : f.groups)
        for (const auto& e : g) locs.insert(eventLocation(e));
      std::istringstream in(t.text);
      std::string l;
      for (int n = 1; std::getline(in, l); ++n) {
        bool completes = l.find("mbarrier.arrive") != std::string::npos || l.find("complete_tx") != std::string::npos ||
                         l.find("mbarrier.expect_tx") != std::string::npos;
        if (!completes) continue;
        for (const auto& loc : locs) {
          if (loc.empty() || l.find("[" + loc + "]") == std::string::npos) continue;
          const extract::Site* s = t.site(n);
          if (s == nullptr || !seen.insert(s->ptxLine).second) continue;
          ss.push_back(s);
          sites.push_back(
              {{"ptx_line", s->ptxLine}, {"instruction", s->instruction}, {"source", sourceJson(s->source)}});
        }
      }
    }
    auto list = [&](size_t from, size_t to) {
      std::string out;
      for (size_t i = from; i < to; ++i)
        out += fmt::format("{}`{}` ({})",
                           i == from     ? ""
                           : i + 1 == to ? " and "
                                         : ", ",
                           ss[i]->instruction, where(a.file, *ss[i]));
      return out;
    };
    size_t waits = 0;
    while (waits < ss.size() && ss[waits]->instruction.find("wait") != std::string::npos) ++waits;
    std::string msg;
    if (f.flag == "data-race")
      msg = "data race between " + list(0, ss.size());
    else if (f.flag == "deadlock" || f.flag == "livelock")
      msg = fmt::format("{}: {} never complete{}", f.flag, list(0, waits), waits == 1 ? "s" : "") +
            (waits < ss.size() ? "; the arrivals that would complete them: " + list(waits, ss.size()) : "");
    else
      msg = fmt::format("undefined behaviour ({}): {}", f.check, list(0, ss.size()));
    r.j["findings"].push_back(
        {{"kind", kindOf(f.flag)}, {"flag", f.check}, {"message", msg}, {"sites", sites}, {"repair", repair}});
    human << (ss.empty() ? a.file : where(a.file, *ss.front())) << ": " << msg;
    if (!repairText.empty()) human << ";" << repairText;
    human << "\n";
  }
  if (!v.ok) {
    // The condition's bad outcome: a consumer's load read something other than the value the copies write.
    json sites = json::array();
    std::string list;
    std::set<int> seen;
    for (const auto& st : v.states) {
      if (!st.satisfies) continue;
      std::istringstream in(st.key);
      std::string item;
      while (std::getline(in, item, ';')) {
        item.erase(0, item.find_first_not_of(' '));
        auto eq = item.find('=');
        if (eq == std::string::npos) continue;
        auto it = t.observed.find(item.substr(0, eq));
        if (it == t.observed.end() || item.substr(eq + 1) == "1") continue;
        const extract::Site* s = t.site(it->second);
        if (s == nullptr || !seen.insert(s->ptxLine).second) continue;
        sites.push_back({{"ptx_line", s->ptxLine}, {"instruction", s->instruction}, {"source", sourceJson(s->source)}});
        list += fmt::format("{}`{}` ({}) reads {}", list.empty() ? "" : "; ", s->instruction, where(a.file, *s),
                            item.substr(eq + 1));
      }
    }
    std::string msg = "a consumer reads a value no completed copy wrote: " + list;
    r.j["findings"].push_back(
        {{"kind", "outcome"}, {"flag", "outcome"}, {"message", msg}, {"sites", sites}, {"repair", repair}});
    human << a.file << ": " << msg << (repairText.empty() ? "" : ";" + repairText) << "\n";
  }
  if (found.empty())
    for (const auto& fl : v.flags) {
      if (fl == "data-race") continue;
      r.j["findings"].push_back(
          {{"kind", kindOf(fl)}, {"flag", fl}, {"message", fl}, {"sites", json::array()}, {"repair", repair}});
      human << a.file << ": kernel " << ke.name << ": " << fl << "\n";
    }
  return r;
}

}  // namespace

void addKernelCommands(CLI::App& app, int& exitCode) {
  auto ea = std::make_shared<KernelArgs>();
  auto* ex = app.add_subcommand("extract", "extract the synchronisation skeleton of a PTX kernel as litmus tests");
  addExtractOptions(ex, *ea);
  ex->callback([ea, &exitCode] {
    extract::ExtractOptions o;
    if (!extractOptions(*ea, o, "extract")) {
      exitCode = kUserError;
      return;
    }
    try {
      auto mod = extract::readModuleFile(ea->file);
      fs::path dir = outputDir(*ea);
      exitCode = kOk;
      for (const auto& ke : extract::extractModule(mod, o)) {
        if (!ke.test) {
          std::cerr << (ke.error ? ke.error->str() : ke.name + ": extraction failed") << "\n";
          exitCode = kUserError;
          continue;
        }
        fs::path p = writeTest(dir, *ke.test);
        std::cout << ke.name << ": " << p.string() << "\n";
        for (const auto& r : ke.test->roles) std::cout << "  " << r << "\n";
      }
    } catch (const DiagnosticError& e) {
      std::cerr << e.what() << "\n";
      exitCode = kUserError;
    }
  });

  auto ca = std::make_shared<KernelArgs>();
  auto* ck = app.add_subcommand("check-kernel",
                                "extract a PTX kernel's synchronisation, check it against the model and report in "
                                "kernel terms (PTX and CUDA source lines, the missing fence or wait)");
  addExtractOptions(ck, *ca);
  ck->add_option("--model", ca->model, "cat model: a file or a shipped model's name (default ptx)");
  ck->add_flag("--json", ca->json, "one JSON object on stdout (docs/kernels.md)");
  ck->add_option("--picture", ca->pictureDir, "write the witness pictures (Graphviz) into DIR");
  ca->budget.timeoutMs = 300000;  // a kernel's test is never left running: undecided after 5 minutes by default
  addBudgetOptions(ck, ca->budget, "check");
  ck->add_option("--max-events", ca->maxEvents, "refuse extracted tests with more events (kernel undecided)");
  ck->add_flag("--no-repair", ca->noRepair, "do not search repairs");
  ck->callback([ca, &exitCode] {
    extract::ExtractOptions o;
    if (!extractOptions(*ca, o, "check-kernel")) {
      exitCode = kUserError;
      return;
    }
    json out = {{"file", ca->file}, {"kernels", json::array()}};
    std::ostringstream human;
    int worst = 0;
    bool anyFinding = false;
    try {
      cat::Model model = cat::loadModel(cat::findModel(ca->model));
      std::string modelName = fs::path(cat::findModel(ca->model)).stem().string();
      auto mod = extract::readModuleFile(ca->file);
      fs::path dir = outputDir(*ca);
      for (const auto& ke : extract::extractModule(mod, o)) {
        auto r = checkKernel(ke, *ca, dir, model, modelName, human);
        out["kernels"].push_back(r.j);
        if (r.status == 2) worst = 2;
        if (r.status == 1) anyFinding = true;
      }
    } catch (const DiagnosticError& e) {
      out["kernels"].push_back({{"name", ca->kernel},
                                {"status", "error"},
                                {"message", e.what()},
                                {"tests", json::array()},
                                {"findings", json::array()}});
      human << e.what() << "\n";
      worst = 2;
    }
    if (ca->json) {
      std::cout << out.dump(2) << "\n";
      std::cerr << human.str();
    } else {
      std::cout << human.str();
    }
    exitCode = worst == 2 ? kUserError : anyFinding ? kMismatch : kOk;
  });
}

}  // namespace ptxmm::cli
