// check-kernel's repairs (analysis/KernelRepair.hpp).
#include "analysis/KernelRepair.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "analysis/Repair.hpp"
#include "check/Checker.hpp"
#include "litmus/Parser.hpp"

namespace ptxmm::analysis {

namespace {

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

/// The search of searchKernelRepair: the candidates, cheapest first, then the first that verifies.
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
    std::vector<TextEdit> edits;
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
      for (int l : occ_[p]) c.edits.push_back(TextEdit{false, before ? firstOfRun(l) - 1 : l, {"    " + instr}});
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
        if (!nt.empty()) c.edits.push_back(TextEdit{true, line, {nt}});
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
      c.edits.push_back(TextEdit{false, l - 1, mbarrierWaitLoop(mbar, parity, l, "    ")});
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
            c.edits.push_back(TextEdit{true, la, {}});
            c.edits.push_back(TextEdit{false, lx, {text(la)}});
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
  std::vector<int> editOrigins(const std::vector<TextEdit>& edits) const {
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
    check::Checker checker;  // one context for every candidate
    for (auto& c : cands_) {
      std::stable_sort(c.edits.begin(), c.edits.end(),
                       [](const TextEdit& x, const TextEdit& y) { return x.line < y.line; });
      std::string patched;
      for (const auto& l : applyTextEdits(base_, c.edits)) patched += l + "\n";
      auto parsed = litmus::tryParseTest(patched, t_.name + "-repair.litmus");
      if (!parsed.ok()) continue;
      check::Verdict v = checker.check(*parsed.test, model, modelName, co);
      // A line of the patched test → the extracted test's line (0 for an inserted line).
      std::vector<int> from{0};
      for (int line : editOrigins(c.edits)) from.push_back(line);
      auto original = [&](int line) { return line > 0 && line < static_cast<int>(from.size()) ? from[line] : 0; };
      if (kernelClean(v, t_, original)) return c.r;
    }
    return std::nullopt;
  }
};

}  // namespace

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

std::optional<KernelRepair> searchKernelRepair(const extract::ExtractedTest& t,
                                               const std::vector<check::FindingReport>& found, const cat::Model& model,
                                               const std::string& modelName, const check::CheckOptions& co) {
  return KernelRepairSearch(t).run(found, model, modelName, co);
}

}  // namespace ptxmm::analysis
