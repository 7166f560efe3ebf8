// ptxmm extract / ptxmm check-kernel: read a compiled kernel (a PTX module, `nvcc -ptx [-lineinfo]`), extract
// the litmus test of each kernel's synchronisation skeleton (extract/), check it against the model and report
// the findings in kernel terms: the PTX lines (and the CUDA source lines of `.loc`) of both sides of a race,
// of an undefined read, of a wait that never completes, and the cheapest verified repair mapped back to a PTX
// line (docs/kernels.md).
#include <fmt/format.h>
#include <unistd.h>
#include <z3++.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "analysis/Repair.hpp"
#include "cat/Model.hpp"
#include "check/Check.hpp"
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

/// The location a witness event accesses ("W stage=1" → "stage"; "" for fences).
std::string eventLocation(const check::WitnessEvent& e) {
  auto sp = e.label.find(' ');
  if (sp == std::string::npos) return "";
  std::string rest = e.label.substr(sp + 1);
  return rest.substr(0, rest.find_first_of("=@ "));
}

/// The findings that hold in the kernel: race pairs between accesses whose kernel footprints are known to be
/// disjoint (two threads' own elements of one buffer stage, two tensor boxes) are dropped, and a finding left
/// without pairs with them. `original` maps a line of the checked text to the extracted test's line.
std::vector<check::FindingReport> kernelFindings(const check::Verdict& v, const extract::ExtractedTest& t,
                                                 const std::function<int(int)>& original) {
  std::vector<check::FindingReport> out;
  for (auto f : check::findings(v)) {
    if (f.flag == "data-race") {
      std::vector<std::vector<check::WitnessEvent>> kept;
      for (const auto& g : f.groups) {
        if (g.size() == 2 && eventLocation(g[0]) == eventLocation(g[1]) &&
            t.disjoint(original(g[0].line), original(g[1].line), eventLocation(g[0])))
          continue;
        kept.push_back(g);
      }
      if (kept.empty()) continue;
      f.groups = std::move(kept);
    }
    out.push_back(std::move(f));
  }
  return out;
}

/// A verdict is clean for the kernel: no finding survives and no other flag is raised.
bool kernelClean(const check::Verdict& v, const extract::ExtractedTest& t, const std::function<int(int)>& original) {
  if (v.status != check::Status::Ok || !v.ok) return false;
  for (const auto& fl : v.flags)
    if (fl != "data-race") return false;
  return kernelFindings(v, t, original).empty();
}

/// One PTX line a kernel repair applies to, and the instruction added or written there.
struct RepairSite {
  const extract::Site* site = nullptr;
  std::string instruction;
  const extract::Site* to = nullptr;  ///< a move: the PTX line the instruction goes after
};

/// A repair of the kernel: one edit applied at every litmus occurrence of one PTX line (a PTX instruction
/// stands for all the loop iterations the test unrolls), verified by re-checking the patched test.
struct KernelRepair {
  std::string kind;      ///< "fence", "parity", "wait", "move" or "barrier" (docs/kernels.md)
  std::string edit;      ///< "insert", "replace" or "move"
  std::string position;  ///< "after" / "before" the site (insert), "at" (replace), "after" `to` (move)
  std::string cuda;      ///< the CUDA source spelling of the instruction, when it has one
  std::vector<RepairSite> sites;
};

/// The first word of a PTX instruction's text (its opcode), guard skipped.
std::string opcodeOf(const std::string& instr) {
  std::istringstream in(instr);
  std::string w;
  in >> w;
  if (w.starts_with("@")) in >> w;
  return w;
}

/// The location of the first (`last` false) or last `[...]` operand of a litmus instruction ("" if none): what a
/// load or store accesses, a copy's destination; the mbarrier an async copy or a try_cancel completes on.
std::string operandLocation(const std::string& text, bool last) {
  auto open = last ? text.rfind('[') : text.find('[');
  auto close = text.find(']', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return "";
  std::string loc = text.substr(open + 1, close - open - 1);
  return loc.substr(0, loc.find_first_of("+ ,"));
}

/// The search of check-kernel's repairs, cheapest first (the costs of Repair.hpp): a proxy fence after a finding's
/// site (1), a flipped parity of a wait (1), an acq_rel fence after a site (2), a wait (3: a smaller
/// cp.async.wait_group count, cp.async.wait_all, cp.async.bulk.wait_group[.read] 0 after the commit of a racing
/// bulk copy, an mbarrier try_wait loop on the barrier a racing copy completes on), an mbarrier arrival moved
/// after the access it released too early, a CTA barrier (4). Only verified candidates are returned. A PTX
/// instruction stands for all the loop iterations the test unrolls, and one CUDA source line for all the copies
/// nvcc unrolled it into: a candidate is applied at every litmus occurrence of every PTX line of its source line
/// (the same instruction), and re-checked (clean: no finding survives, the bad outcome is unreachable).
class KernelRepairSearch {
 public:
  explicit KernelRepairSearch(const extract::ExtractedTest& t) : t_(t) {
    std::istringstream in(t.text);
    std::string l;
    while (std::getline(in, l)) base_.push_back(l);
    // The litmus thread of each line (-1 outside the threads' code).
    static const std::regex header(R"(^P\d+\b.*:\s*$)");
    static const std::regex condition(R"(^(~?exists|forall|locations|filter)\b)");
    int th = -1, n = -1;
    thread_.push_back(-1);
    for (const auto& line : base_) {
      if (std::regex_search(line, header))
        th = ++n;
      else if (std::regex_search(line, condition))
        th = -1;
      thread_.push_back(th);
    }
    // Occurrences of each PTX line: the last litmus line of each contiguous run (a wait loop is three lines).
    for (const auto& [line, s] : t.sites) {
      auto next = t.sites.find(line + 1);
      if (next == t.sites.end() || next->second.ptxLine != s.ptxLine) occ_[s.ptxLine].push_back(line);
    }
  }

  std::optional<KernelRepair> run(const std::vector<check::FindingReport>& found, const cat::Model& model,
                                  const std::string& modelName, const check::CheckOptions& co) {
    std::set<int> siteLines;
    std::vector<std::pair<int, int>> pairs;  // litmus lines of the two sides of each finding's group
    for (const auto& f : found)
      for (const auto& g : f.groups) {
        for (const auto& e : g)
          if (const auto* s = t_.site(e.line)) siteLines.insert(s->ptxLine);
        if (g.size() == 2 && t_.site(g[0].line) && t_.site(g[1].line)) pairs.emplace_back(g[0].line, g[1].line);
      }
    for (int pl : siteLines)
      if (occ_.count(pl)) insertAt("fence", pl, false, "fence.proxy.async.shared::cta;");
    parities();
    for (int pl : siteLines)
      if (occ_.count(pl)) insertAt("fence", pl, false, "fence.acq_rel.cta;");
    waits(pairs);
    moves(pairs);
    barriers(pairs);
    return verify(model, modelName, co);
  }

 private:
  struct Cand {
    KernelRepair r;
    std::vector<analysis::TextEdit> edits;
  };

  const extract::ExtractedTest& t_;
  std::vector<std::string> base_;
  std::vector<int> thread_;  // 1-based litmus line → thread index
  std::map<int, std::vector<int>> occ_;
  std::vector<Cand> cands_;
  std::set<std::pair<std::string, std::vector<int>>> tried_;

  const std::string& text(int line) const { return base_.at(static_cast<size_t>(line - 1)); }
  const extract::Site* siteOf(int pl) const { return &t_.sites.at(occ_.at(pl).front()); }
  int ptxLineOf(int line) const { return t_.sites.at(line).ptxLine; }
  /// The first litmus line of the run of lines an occurrence ends.
  int firstOfRun(int line) const {
    int pl = ptxLineOf(line);
    while (t_.sites.count(line - 1) && ptxLineOf(line - 1) == pl) --line;
    return line;
  }
  /// True if the litmus line is an asynchronous operation (a copy, a tensor store, a try_cancel).
  bool isAsync(int line) const {
    const std::string op = opcodeOf(text(line));
    return (op.starts_with("cp.async") && !op.ends_with("commit_group") && op.find("wait_group") == std::string::npos &&
            op != "cp.async.wait_all" && !op.starts_with("cp.async.mbarrier")) ||
           op.starts_with("clusterlaunchcontrol.try_cancel");
  }

  // The PTX lines of the same source line and opcode as `pl` (all of them when there is no .loc).
  std::vector<int> group(int pl) const {
    std::vector<int> g;
    const extract::Site* s0 = siteOf(pl);
    for (const auto& [p, lines] : occ_) {
      const extract::Site* s = siteOf(p);
      if (p == pl || (s0->source && s->source == s0->source && opcodeOf(s->instruction) == opcodeOf(s0->instruction)))
        g.push_back(p);
    }
    return g;
  }

  /// Inserts `instr` after (before) every occurrence of every PTX line of `pl`'s group.
  void insertAt(const std::string& kind, int pl, bool before, const std::string& instr) {
    if (!occ_.count(pl)) return;
    auto g = group(pl);
    if (!tried_.insert({(before ? "before " : "after ") + instr, g}).second) return;
    Cand c;
    c.r = {kind, "insert", before ? "before" : "after", instr == "bar.sync 0;" ? "__syncthreads();" : "", {}};
    for (int p : g) {
      c.r.sites.push_back({siteOf(p), instr});
      for (int l : occ_[p])
        c.edits.push_back(analysis::TextEdit{false, before ? firstOfRun(l) - 1 : l, {"    " + instr}});
    }
    cands_.push_back(std::move(c));
  }

  /// Replaces every litmus line of every PTX line of `pl`'s group whose text contains `match` by `instr`
  /// (`rewrite` gives the new litmus text of a line).
  void replaceAt(const std::string& kind, int pl, const std::string& key, const std::string& instr,
                 const std::string& match, const std::function<std::string(const std::string&)>& rewrite) {
    auto g = group(pl);
    if (!tried_.insert({key, g}).second) return;
    Cand c;
    c.r = {kind, "replace", "at", "", {}};
    for (int p : g) {
      c.r.sites.push_back({siteOf(p), instr});
      for (const auto& [line, st] : t_.sites) {
        if (st.ptxLine != p || text(line).find(match) == std::string::npos) continue;
        std::string nt = rewrite(text(line));
        if (!nt.empty()) c.edits.push_back(analysis::TextEdit{true, line, {nt}});
      }
    }
    if (!c.edits.empty()) cands_.push_back(std::move(c));
  }

  /// The other parity of every mbarrier wait.
  void parities() {
    for (const auto& [pl, lines] : occ_) {
      const extract::Site& s = *siteOf(pl);
      if (s.instruction.find("try_wait.parity") == std::string::npos &&
          s.instruction.find("test_wait.parity") == std::string::npos)
        continue;
      replaceAt("parity", pl, "parity", s.instruction + "  // wait for the other parity (parity ^ 1)", "wait.parity",
                [](const std::string& text) -> std::string {
                  auto semi = text.rfind(';');
                  auto comma = text.rfind(',', semi);
                  if (semi == std::string::npos || comma == std::string::npos) return "";
                  std::string par = text.substr(comma + 1, semi - comma - 1);
                  par.erase(0, par.find_first_not_of(' '));
                  if (par != "0" && par != "1") return "";
                  return text.substr(0, comma + 2) + (par == "0" ? "1" : "0") + text.substr(semi);
                });
    }
  }

  /// The waits that complete the async side of a racing pair before its other side: a smaller count of a
  /// cp.async.wait_group and cp.async.wait_all before the access (a cp.async), cp.async.bulk.wait_group.read 0 /
  /// wait_group 0 after the commit of the bulk group or before the access (a bulk copy or tensor store), an
  /// mbarrier try_wait loop before the access on the barrier the copy completes on (a copy or try_cancel with
  /// complete_tx), its parity the phase the kernel is in: 0, 1, 0, ... for the thread's successive occurrences.
  void waits(const std::vector<std::pair<int, int>>& pairs) {
    std::vector<std::pair<int, int>> sides;  // (async line, access line)
    for (auto [a, b] : pairs) {
      if (isAsync(a) && !isAsync(b)) sides.emplace_back(a, b);
      if (isAsync(b) && !isAsync(a)) sides.emplace_back(b, a);
    }
    auto cpAsync = [&](int line) {  // a non-bulk cp.async (completed by its thread's wait_group / wait_all)
      const std::string op = opcodeOf(text(line));
      return op.starts_with("cp.async.") && op.find("bulk") == std::string::npos;
    };
    if (std::any_of(sides.begin(), sides.end(), [&](auto s) { return cpAsync(s.first); }))
      for (const auto& [pl, lines] : occ_) {
        const std::string& instr = siteOf(pl)->instruction;
        if (opcodeOf(instr) != "cp.async.wait_group") continue;
        int n = 0;
        try {
          n = std::stoi(instr.substr(instr.find("wait_group") + 10));
        } catch (const std::exception&) {
          continue;
        }
        for (int m = n - 1; m >= 0; --m) {
          std::string wanted = fmt::format("cp.async.wait_group {};", m);
          replaceAt("wait", pl, wanted, wanted, "cp.async.wait_group",
                    [&](const std::string& text) { return text.substr(0, text.find("cp.async.wait_group")) + wanted; });
        }
      }
    for (auto [a, x] : sides) {
      const std::string& at = text(a);
      if (cpAsync(a)) insertAt("wait", ptxLineOf(x), true, "cp.async.wait_all;");
      if (at.find("bulk_group") != std::string::npos) {
        // The commit of the copy's bulk group: the next commit_group of its thread.
        int commit = 0;
        for (int l = a + 1; l <= static_cast<int>(base_.size()) && thread_[l] == thread_[a] && commit == 0; ++l)
          if (text(l).find("cp.async.bulk.commit_group") != std::string::npos && t_.sites.count(l)) commit = l;
        for (const char* w : {"cp.async.bulk.wait_group.read 0;", "cp.async.bulk.wait_group 0;"}) {
          if (commit != 0) insertAt("wait", ptxLineOf(commit), false, w);
          insertAt("wait", ptxLineOf(x), true, w);
        }
      }
      if (at.find("complete_tx") != std::string::npos) insertMbarrierWait(ptxLineOf(x));
    }
  }

  /// A try_wait.parity loop before every occurrence of `pl`'s group that accesses the destination of a copy that
  /// completes on an mbarrier, on that mbarrier (`full_1` for the stage `tile_s1`), with the parity of the
  /// thread's n-th wait on it: n & 1.
  void insertMbarrierWait(int pl) {
    auto g = group(pl);
    if (!tried_.insert({"mbarrier wait", g}).second) return;
    std::map<std::string, std::string> completesOn;  // destination location → mbarrier
    for (int l = 1; l <= static_cast<int>(base_.size()); ++l)
      if (thread_[l] >= 0 && t_.sites.count(l) && isAsync(l) && text(l).find("complete_tx") != std::string::npos)
        completesOn.emplace(operandLocation(text(l), false), operandLocation(text(l), true));
    std::vector<std::pair<int, int>> at;  // (first litmus line of the occurrence, PTX line)
    for (int p : g)
      for (int l : occ_[p]) at.emplace_back(firstOfRun(l), p);
    std::sort(at.begin(), at.end());
    std::map<std::pair<int, std::string>, int> count;             // (thread, mbarrier) → waits inserted
    std::map<int, std::set<std::pair<std::string, int>>> waitOf;  // PTX line → (mbarrier, parity) of its occurrences
    Cand c;
    for (auto [l, p] : at) {
      auto it = completesOn.find(operandLocation(text(l), false));
      if (it == completesOn.end()) continue;
      const std::string& mbar = it->second;
      int parity = count[{thread_[l], mbar}]++ & 1;
      waitOf[p].insert({mbar, parity});
      c.edits.push_back(analysis::TextEdit{false, l - 1, analysis::mbarrierWaitLoop(mbar, parity, l, "    ")});
    }
    if (c.edits.empty()) return;
    c.r = {"wait", "insert", "before", "", {}};
    for (const auto& [p, ws] : waitOf) {
      // One parity, or a loop the test unrolls: the parity follows the phase.
      std::string mbar = ws.begin()->first, parity = std::to_string(ws.begin()->second);
      if (ws.size() > 1) parity = "phase";
      for (const auto& w : ws)
        if (w.first != mbar) mbar = "<mbarrier>";
      c.r.sites.push_back({siteOf(p), fmt::format("WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [{}], {}; "
                                                  "@!p bra WAIT;",
                                                  mbar, parity)});
    }
    cands_.push_back(std::move(c));
  }

  /// An mbarrier arrival moved from before a racing access of its thread to after it (the release of a buffer
  /// before the thread's last access of it): every occurrence of the arrival's group goes after the next
  /// occurrence of the access's group in its thread (and the fences right after it), with no wait of the thread
  /// in between.
  void moves(const std::vector<std::pair<int, int>>& pairs) {
    for (auto [a, b] : pairs)
      for (int x : {a, b}) {
        if (isAsync(x)) continue;
        int arrive = 0;
        for (int l = firstOfRun(x) - 1; l > 0 && thread_[l] == thread_[x] && arrive == 0; --l) {
          const std::string op = opcodeOf(text(l));
          if (op.find("wait") != std::string::npos || op.starts_with("bar")) break;
          if (op.starts_with("mbarrier.arrive") && t_.sites.count(l)) arrive = l;
        }
        if (arrive == 0) continue;
        auto from = group(ptxLineOf(arrive));
        auto to = group(ptxLineOf(x));
        if (!tried_.insert({"move to " + std::to_string(ptxLineOf(x)), from}).second) continue;
        Cand c;
        c.r = {"move", "move", "after", "", {}};
        std::set<int> reported;
        bool ok = true;
        for (int p : from)
          for (int la : occ_[p]) {
            int lx = 0;
            for (int l = la + 1; l <= static_cast<int>(base_.size()) && thread_[l] == thread_[la] && lx == 0; ++l) {
              if (!t_.sites.count(l)) continue;
              const std::string op = opcodeOf(text(l));
              if (op.find("wait") != std::string::npos || op.starts_with("bar") ||
                  std::count(from.begin(), from.end(), ptxLineOf(l)))
                break;
              if (std::count(to.begin(), to.end(), ptxLineOf(l)) && occ_.count(ptxLineOf(l)) &&
                  std::count(occ_[ptxLineOf(l)].begin(), occ_[ptxLineOf(l)].end(), l))
                lx = l;
            }
            if (lx == 0 || firstOfRun(la) != la) {
              ok = false;
              continue;
            }
            // Past the fences that order the access (a proxy fence after a read goes before the release).
            while (lx < static_cast<int>(base_.size()) && thread_[lx + 1] == thread_[la] && t_.sites.count(lx + 1) &&
                   opcodeOf(text(lx + 1)).starts_with("fence"))
              ++lx;
            c.edits.push_back(analysis::TextEdit{true, la, {}});
            c.edits.push_back(analysis::TextEdit{false, lx, {text(la)}});
            if (reported.insert(p).second)
              c.r.sites.push_back({siteOf(p), siteOf(p)->instruction, siteOf(ptxLineOf(lx))});
          }
        if (ok && !c.edits.empty()) cands_.push_back(std::move(c));
      }
  }

  /// bar.sync 0 between the two sides of a race of two threads: after a wait, before either side.
  void barriers(const std::vector<std::pair<int, int>>& pairs) {
    bool crossThread =
        std::any_of(pairs.begin(), pairs.end(), [&](auto p) { return thread_[p.first] != thread_[p.second]; });
    if (!crossThread) return;
    for (const auto& [pl, lines] : occ_)
      if (opcodeOf(siteOf(pl)->instruction).find("wait") != std::string::npos)
        insertAt("barrier", pl, false, "bar.sync 0;");
    for (auto [a, b] : pairs) {
      if (thread_[a] == thread_[b]) continue;
      for (int l : {a, b})
        if (!isAsync(l)) insertAt("barrier", ptxLineOf(l), true, "bar.sync 0;");
    }
  }

  /// For each line of the patched test, in order: the base line it is (0 for an inserted line).
  std::vector<int> editOrigins(const std::vector<analysis::TextEdit>& edits) const {
    std::map<int, size_t> inserted;
    std::map<int, size_t> replaced;
    for (const auto& e : edits) (e.replace ? replaced[e.line] : inserted[e.line]) += e.lines.size();
    std::vector<int> out;
    for (int line = 0; line <= static_cast<int>(base_.size()); ++line) {
      if (line > 0) {
        auto r = replaced.find(line);
        out.insert(out.end(), r == replaced.end() ? 1 : r->second, line);  // a deleted line is none
      }
      out.insert(out.end(), inserted[line], 0);
    }
    return out;
  }

  std::optional<KernelRepair> verify(const cat::Model& model, const std::string& modelName,
                                     const check::CheckOptions& co) {
    for (auto& c : cands_) {
      std::stable_sort(c.edits.begin(), c.edits.end(),
                       [](const analysis::TextEdit& x, const analysis::TextEdit& y) { return x.line < y.line; });
      std::string patched;
      for (const auto& l : analysis::applyTextEdits(base_, c.edits)) patched += l + "\n";
      auto parsed = litmus::tryParseTest(patched, t_.name + "-repair.litmus");
      if (!parsed.ok()) continue;
      check::Verdict v = check::checkTest(*parsed.test, model, modelName, co);
      // A line of the patched test → the extracted test's line (0 for an inserted line).
      std::vector<int> from{0};
      for (int line : editOrigins(c.edits)) from.push_back(line);
      auto original = [&](int line) { return line > 0 && line < static_cast<int>(from.size()) ? from[line] : 0; };
      if (kernelClean(v, t_, original)) return c.r;
    }
    return std::nullopt;
  }
};

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
  co.maxEvents = a.maxEvents;
  z3::context ctx;
  check::Verdict v = check::checkTest(*parsed.test, model, modelName, co, &ctx);
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
    if (auto kr = KernelRepairSearch(t).run(found, model, modelName, co)) {
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
