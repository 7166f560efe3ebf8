// Fence-necessity analysis (see FenceNecessity.hpp).
#include "analysis/FenceNecessity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>

#include "check/Dot.hpp"
#include "litmus/Printer.hpp"
#include "support/Diagnostic.hpp"
#include "support/Parallel.hpp"

namespace ptxmm::analysis {

namespace {

using ptx::OpId;

/// The instructions whose removal the analysis tries: fences, proxy fences and the waits of async groups
/// (not their commits, which only close a group).
bool isRemovedFence(OpId op) {
  switch (ptx::roleOf(ptx::opInfo(op).family)) {
    case ptx::FamilyRole::Fence: return true;
    case ptx::FamilyRole::Wait: return op != OpId::CpAsyncCommit && op != OpId::CpAsyncBulkCommit;
    case ptx::FamilyRole::Access:
    case ptx::FamilyRole::Sync:
    case ptx::FamilyRole::Local:
    case ptx::FamilyRole::Control: return false;
  }
  return false;
}

bool isWeakenableMbarrier(const litmus::Instr& in) {
  switch (in.op) {
    case OpId::MbarrierArrive:
    case OpId::MbarrierArriveDrop:
    case OpId::MbarrierTestWait:
    case OpId::MbarrierTryWait:
      return in.sem != ptx::Sem::Relaxed && in.sem != ptx::Sem::None && in.sem != ptx::Sem::Weak;
    default: return false;
  }
}

std::string fileSafe(const std::string& s) {
  std::string r;
  for (char c : s) r += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return r;
}

std::string joinFlags(const std::set<std::string>& flags) {
  std::string r;
  for (const auto& f : flags) r += " +" + f;
  return r;
}

/// A state of `v` that shows `flag` (any state with a witness), or nullopt.
std::optional<size_t> stateWithFlag(const check::Verdict& v, const std::string& flag) {
  for (size_t k = 0; k < v.states.size(); ++k)
    if (v.states[k].flags.count(flag) && v.states[k].witness) return k;
  return std::nullopt;
}

/// A state of `v` reaching the bad outcome (with a witness if one exists), or nullopt.
std::optional<size_t> badState(const check::Verdict& v) {
  std::optional<size_t> any;
  bool wantSat = v.quant != litmus::Condition::Quant::Forall;
  for (size_t k = 0; k < v.states.size(); ++k)
    if (v.states[k].satisfies == wantSat) {
      if (v.states[k].witness) return k;
      if (!any) any = k;
    }
  return any;
}

std::string escapeCell(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '|')
      r += "\\|";
    else if (c == '\n')
      r += ' ';
    else
      r += c;
  }
  return r;
}

}  // namespace

std::vector<SyncSite> findSyncSites(const litmus::Test& test) {
  std::vector<SyncSite> sites;
  auto labelOf = [&](const StmtRef& r) {
    const auto& in = *test.threads[static_cast<size_t>(r.thread)].code[r.stmt].instr;
    return fmt::format("P{} l.{} {}", r.thread, in.src.line, litmus::printInstr(in));
  };
  // Individual removals and weakenings, in thread and program order.
  for (size_t t = 0; t < test.threads.size(); ++t) {
    const auto& code = test.threads[t].code;
    for (size_t i = 0; i < code.size(); ++i) {
      if (!code[i].instr) continue;
      const auto& in = *code[i].instr;
      StmtRef ref{static_cast<int>(t), i};
      if (isRemovedFence(in.op) || in.op == OpId::GriddepWait) {
        sites.push_back({"", "remove " + labelOf(ref), MutationKind::Remove, {ref}, in.src, {}});
      } else if (isWeakenableMbarrier(in) ||
                 (in.op == OpId::BarrierClusterArrive && in.sem != ptx::Sem::Relaxed && in.sem != ptx::Sem::None)) {
        sites.push_back({"", "relax " + labelOf(ref), MutationKind::WeakenToRelaxed, {ref}, in.src, {}});
      }
    }
  }
  // Barrier groups: the k-th bar.sync/bar.arrive with a given id in every thread of one CTA; the
  // k-th barrier.cluster.arrive and wait in every thread of one cluster.
  struct GroupKey {
    int kind;  // 0 = CTA barrier, 1 = cluster barrier, 2 = warp barrier (bar.warp.sync of one warp and mask)
    int unit;  // CTA id or cluster id
    std::string id;
    int occurrence;
    auto operator<=>(const GroupKey&) const = default;
  };
  std::map<GroupKey, std::vector<StmtRef>> groups;
  for (size_t t = 0; t < test.threads.size(); ++t) {
    const auto& th = test.threads[t];
    std::map<std::string, int> seen;
    int clusterArrive = 0, clusterWait = 0;
    for (size_t i = 0; i < th.code.size(); ++i) {
      if (!th.code[i].instr) continue;
      const auto& in = *th.code[i].instr;
      StmtRef ref{static_cast<int>(t), i};
      if (in.op == OpId::BarSync || in.op == OpId::BarArrive) {
        std::string id = in.operands.empty() ? "0" : litmus::printOperand(in.operands[0]);
        groups[{0, th.where.cta, id, seen[id]++}].push_back(ref);
      } else if (in.op == OpId::BarWarpSync && !in.operands.empty()) {
        const std::string warp = th.where.warp >= 0 ? "warp " + std::to_string(th.where.warp) : th.name;
        std::string id = warp + " " + litmus::printOperand(in.operands[0]);
        groups[{2, th.where.cta, id, seen[id]++}].push_back(ref);
      } else if (in.op == OpId::BarrierClusterArrive) {
        groups[{1, th.where.cluster, "", clusterArrive++}].push_back(ref);
      } else if (in.op == OpId::BarrierClusterWait) {
        groups[{1, th.where.cluster, "", clusterWait++}].push_back(ref);
      }
    }
  }
  for (auto& [key, refs] : groups) {
    std::sort(refs.begin(), refs.end(), [](const StmtRef& a, const StmtRef& b) {
      return a.thread != b.thread ? a.thread < b.thread : a.stmt < b.stmt;
    });
    std::set<int> threads;
    for (const auto& r : refs) threads.insert(r.thread);
    std::string who;
    for (int t : threads) who += (who.empty() ? "P" : ",P") + std::to_string(t);
    const auto& first = *test.threads[static_cast<size_t>(refs[0].thread)].code[refs[0].stmt].instr;
    std::string what = key.kind == 0 ? fmt::format("bar {} #{} of CTA {}", key.id, key.occurrence + 1, key.unit)
                       : key.kind == 2
                           ? fmt::format("bar.warp.sync ({}) #{} of CTA {}", key.id, key.occurrence + 1, key.unit)
                           : fmt::format("barrier.cluster.arrive+wait #{} of cluster {}", key.occurrence + 1, key.unit);
    sites.push_back({"",
                     fmt::format("remove {} ({}, l.{})", what, who, first.src.line),
                     MutationKind::Remove,
                     refs,
                     first.src,
                     {}});
  }
  for (size_t k = 0; k < sites.size(); ++k) {
    sites[k].id = "s" + std::to_string(k + 1);
    for (const auto& r : sites[k].stmts) {
      const auto& in = *test.threads[static_cast<size_t>(r.thread)].code[r.stmt].instr;
      sites[k].instrs.emplace_back(litmus::printInstr(in), in.src.line);
    }
  }
  return sites;
}

litmus::Test applyMutation(const litmus::Test& test, const SyncSite& site) {
  litmus::Test m = test;
  m.name = test.name + "+no-" + site.id;
  if (site.kind == MutationKind::WeakenToRelaxed) {
    for (const auto& r : site.stmts) {
      auto& stmt = m.threads.at(static_cast<size_t>(r.thread)).code.at(r.stmt);
      if (stmt.instr) stmt.instr->sem = ptx::Sem::Relaxed;
    }
    return m;
  }
  // Remove from the back so that earlier indices stay valid; a label on the statement is kept.
  std::vector<StmtRef> refs = site.stmts;
  std::sort(refs.begin(), refs.end(), [](const StmtRef& a, const StmtRef& b) {
    return a.thread != b.thread ? a.thread > b.thread : a.stmt > b.stmt;
  });
  for (const auto& r : refs) {
    auto& code = m.threads.at(static_cast<size_t>(r.thread)).code;
    auto& stmt = code.at(r.stmt);
    if (!stmt.label.empty())
      stmt.instr.reset();
    else
      code.erase(code.begin() + static_cast<std::ptrdiff_t>(r.stmt));
  }
  return m;
}

std::vector<std::filesystem::path> defaultModelPaths(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  out.push_back(dir / "ptx.cat");
  std::vector<std::filesystem::path> variants;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    auto name = e.path().filename().string();
    if (e.is_regular_file() && name.rfind("ptx-", 0) == 0 && e.path().extension() == ".cat")
      variants.push_back(e.path());
  }
  std::sort(variants.begin(), variants.end());
  out.insert(out.end(), variants.begin(), variants.end());
  return out;
}

std::vector<NamedModel> loadModels(const std::vector<std::filesystem::path>& paths) {
  std::vector<NamedModel> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec))
      throw DiagnosticError(SourceLoc{p.string(), 0, 0}, "model file not found");
    out.push_back({p.stem().string(), cat::loadModel(p)});
  }
  return out;
}

bool badOutcomeReachable(const check::Verdict& v) {
  bool wantSat = v.quant != litmus::Condition::Quant::Forall;
  for (const auto& s : v.states)
    if (s.satisfies == wantSat) return true;
  return false;
}

bool isNeeded(Necessity n) {
  switch (n) {
    case Necessity::NeededOutcome:
    case Necessity::NeededRace:
    case Necessity::NeededUndefined: return true;
    case Necessity::Redundant:
    case Necessity::OriginalFails:
    case Necessity::Error: return false;
  }
  return false;
}

std::string toString(Necessity n) {
  switch (n) {
    case Necessity::Redundant: return "redundant";
    case Necessity::OriginalFails: return "n/a (original fails)";
    case Necessity::NeededOutcome: return "needed";
    case Necessity::NeededRace: return "needed (race)";
    case Necessity::NeededUndefined: return "needed (UB)";
    case Necessity::Error: return "error";
  }
  return "?";
}

std::string verdictSummary(const check::Verdict& v) {
  if (v.status != check::Status::Ok) return fmt::format("{}: {}", outcome::statusName(v.status), v.message);
  return outcome::toString(v.observation) + joinFlags(v.flags);
}

FenceReport fenceNecessity(const litmus::Test& test, const std::vector<NamedModel>& models, const FenceOptions& options,
                           check::Checker* checker) {
  FenceReport rep;
  rep.testName = test.name;
  rep.file = test.file;
  rep.condition = litmus::printCondition(test.condition, litmus::PropStyle::Herd);
  rep.sites = findSyncSites(test);
  std::vector<litmus::Test> mutants;
  mutants.reserve(rep.sites.size());
  for (const auto& s : rep.sites) mutants.push_back(applyMutation(test, s));
  // The originals first, then the mutants of the models whose original could be checked; the
  // checks of one phase are independent and run as one job list.
  const size_t perModel = rep.sites.size() + 1;
  std::vector<check::Verdict> verdicts(models.size() * perModel);
  std::optional<check::Checker> own;  // for the sequential checks when the caller has no checker
  check::Checker& sequential = checker != nullptr ? *checker : own.emplace();
  auto runJobs = [&](const std::vector<size_t>& jobs) {
    auto runJob = [&](size_t j, check::Checker& c) {
      const auto& nm = models[j / perModel];
      size_t k = j % perModel;
      verdicts[j] = c.check(k == 0 ? test : mutants[k - 1], nm.model, nm.name, options.check);
    };
    if (options.jobs <= 1 || jobs.size() <= 1) {
      for (size_t j : jobs) runJob(j, sequential);
      return;
    }
    std::vector<std::unique_ptr<check::Checker>> checkers(static_cast<size_t>(workerCount(jobs.size(), options.jobs)));
    parallelFor(jobs.size(), options.jobs, [&](size_t i, int w) {
      auto& local = checkers[static_cast<size_t>(w)];
      if (!local) local = std::make_unique<check::Checker>();
      runJob(jobs[i], *local);
    });
  };
  std::vector<size_t> phase;
  for (size_t mi = 0; mi < models.size(); ++mi) phase.push_back(mi * perModel);
  runJobs(phase);
  phase.clear();
  for (size_t mi = 0; mi < models.size(); ++mi)
    if (verdicts[mi * perModel].status == check::Status::Ok)
      for (size_t k = 1; k < perModel; ++k) phase.push_back(mi * perModel + k);
  runJobs(phase);
  for (size_t mi = 0; mi < models.size(); ++mi) {
    const auto& nm = models[mi];
    ModelAnalysis ma;
    ma.model = nm.name;
    ma.original = std::move(verdicts[mi * perModel]);
    bool origOk = ma.original.status == check::Status::Ok;
    ma.badReachable = origOk && badOutcomeReachable(ma.original);
    // A broken original: the bad outcome is reachable with every site in place, so no removal can show
    // that a site is needed for it. (Races and UB of the original only hide *new* ones: said per site.)
    std::string racyOriginal;
    for (const char* f : {"data-race", "undefined"})
      if (origOk && ma.original.flags.count(f)) racyOriginal += (racyOriginal.empty() ? "+" : ", +") + std::string(f);
    for (size_t k = 0; k < rep.sites.size(); ++k) {
      SiteResult sr;
      sr.mutant = std::move(verdicts[mi * perModel + k + 1]);
      if (!origOk) {
        sr.necessity = Necessity::Error;
        // Never checked: no verdict of its own (a default one would read "Never").
        sr.mutant = check::undecidedVerdict(mutants[k], nm.name, options.check.engine, check::Status::Unknown,
                                            "not checked: the original could not be decided");
        sr.note = "original: " + verdictSummary(ma.original);
      } else if (sr.mutant.status != check::Status::Ok) {
        sr.necessity = Necessity::Error;
        sr.note = verdictSummary(sr.mutant);
      } else {
        const auto& of = ma.original.flags;
        const auto& mf = sr.mutant.flags;
        auto isNew = [&](const std::string& f) { return mf.count(f) && !of.count(f); };
        if (!ma.badReachable && badOutcomeReachable(sr.mutant)) {
          sr.necessity = Necessity::NeededOutcome;
          sr.witness = badState(sr.mutant);
        } else if (isNew("data-race")) {
          sr.necessity = Necessity::NeededRace;
          sr.witness = stateWithFlag(sr.mutant, "data-race");
        } else if (isNew("undefined")) {
          sr.necessity = Necessity::NeededUndefined;
          sr.witness = stateWithFlag(sr.mutant, "undefined");
        } else if (ma.badReachable) {
          sr.necessity = Necessity::OriginalFails;
          sr.note =
              "the original already fails (the bad outcome is reachable): removing a site cannot show that "
              "it is needed";
        } else {
          sr.necessity = Necessity::Redundant;
          if (!racyOriginal.empty())
            sr.note = "the original already raises " + racyOriginal + ": a race or UB this site prevents is not shown";
        }
        std::set<std::string> extra;
        for (const auto& f : mf)
          if (!of.count(f)) extra.insert(f);
        std::set<std::string> gone;
        for (const auto& f : of)
          if (!mf.count(f)) gone.insert(f);
        if (!extra.empty()) sr.note += (sr.note.empty() ? "" : "; ") + std::string("new flags:") + joinFlags(extra);
        if (!gone.empty()) {
          std::string g;
          for (const auto& f : gone) g += " -" + f;
          sr.note += (sr.note.empty() ? "" : "; ") + std::string("flags gone:") + g;
        }
      }
      ma.sites.push_back(std::move(sr));
    }
    rep.models.push_back(std::move(ma));
  }
  return rep;
}

const WitnessFiles::Entry* WitnessFiles::find(size_t site, size_t model) const {
  for (const auto& e : entries)
    if (e.site == site && e.model == model) return &e;
  return nullptr;
}

WitnessFiles writeWitnesses(const FenceReport& report, const std::filesystem::path& dir, bool svg,
                            bool firstModelOnly) {
  WitnessFiles files;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot create directory {}: {}", dir.string(), ec.message()));
  for (size_t s = 0; s < report.sites.size(); ++s) {
    for (size_t m = 0; m < report.models.size(); ++m) {
      const auto& sr = report.models[m].sites[s];
      if (!sr.witness || !isNeeded(sr.necessity)) continue;
      const auto& state = sr.mutant.states.at(*sr.witness);
      if (!state.witness) continue;
      std::string stem = fileSafe(fmt::format("{}-{}-{}", report.testName, report.sites[s].id, report.models[m].model));
      auto dotPath = dir / (stem + ".dot");
      {
        std::ofstream out(dotPath);
        if (!out) throw std::runtime_error("cannot write " + dotPath.string());
        check::Verdict titled = sr.mutant;
        titled.testName = report.testName + " without " + report.sites[s].id + " (" + report.models[m].model + ")";
        // The removed (or relaxed) instructions, marked where they were.
        check::DotOptions marks;
        const auto& site = report.sites[s];
        for (size_t k = 0; k < site.stmts.size() && k < site.instrs.size(); ++k)
          marks.marks.push_back(
              {site.stmts[k].thread, site.instrs[k].second,
               fmt::format("{} l.{}: {}", site.kind == MutationKind::Remove ? "removed" : "made .relaxed",
                           site.instrs[k].second, site.instrs[k].first)});
        check::writeDot(titled, state, out, marks);
      }
      std::string file = stem + ".dot";
      if (svg) {
        std::string error;  // empty when dot is not installed: the .dot file stands in, quietly
        if (check::renderSvg(dotPath, dir / (stem + ".svg"), error))
          file = stem + ".svg";
        else if (!error.empty())
          files.errors.push_back(error);
      }
      files.entries.push_back({s, m, file});
      if (firstModelOnly) break;
    }
  }
  return files;
}

void printText(const FenceReport& report, std::ostream& os, const WitnessFiles* files) {
  os << "Test " << report.testName << " (" << report.file << ")\n";
  os << "Condition " << report.condition << "  [bad outcome: "
     << (report.models.empty() || report.models[0].original.quant != litmus::Condition::Quant::Forall
             ? "the proposition"
             : "its negation")
     << "]\n";
  bool anyFails = false;
  for (const auto& m : report.models) {
    os << fmt::format("Original {:<28} {}{}\n", m.model, verdictSummary(m.original),
                      m.badReachable ? "  (bad outcome reachable)" : "");
    anyFails = anyFails || m.badReachable;
  }
  if (anyFails)
    os << "The original already fails under a model: removing instructions cannot show which are needed there "
          "(n/a); run `ptxmm fences --repair` for the edits that fix it.\n";
  if (report.sites.empty()) {
    os << "No synchronisation instructions.\n\n";
    return;
  }
  size_t w = 0;
  for (const auto& s : report.sites) w = std::max(w, s.label.size() + s.id.size() + 2);
  std::vector<size_t> cw;
  for (const auto& m : report.models) cw.push_back(std::max<size_t>(m.model.size(), 13));
  os << fmt::format("{:<{}}", "site", w);
  for (size_t m = 0; m < report.models.size(); ++m) os << " | " << fmt::format("{:<{}}", report.models[m].model, cw[m]);
  os << "\n";
  for (size_t s = 0; s < report.sites.size(); ++s) {
    os << fmt::format("{:<{}}", report.sites[s].id + ": " + report.sites[s].label, w);
    for (size_t m = 0; m < report.models.size(); ++m) {
      const auto& sr = report.models[m].sites[s];
      std::string cell = toString(sr.necessity);
      os << " | " << fmt::format("{:<{}}", cell, cw[m]);
    }
    os << "\n";
    for (size_t m = 0; m < report.models.size(); ++m) {
      const auto& sr = report.models[m].sites[s];
      bool show = sr.necessity != Necessity::Redundant || !sr.note.empty();
      if (!show) continue;
      os << fmt::format("    {}: mutant {}", report.models[m].model, verdictSummary(sr.mutant));
      if (sr.witness) os << "; witness state [" << sr.mutant.states[*sr.witness].key << "]";
      if (!sr.note.empty()) os << "; " << sr.note;
      if (files)
        if (const auto* e = files->find(s, m)) os << "; picture " << e->file;
      os << "\n";
    }
  }
  os << "\n";
}

void printMarkdown(const FenceReport& report, std::ostream& os, const WitnessFiles* files,
                   const std::string& pictureBase) {
  os << "### " << report.testName << "\n\n";
  os << "`" << report.file << "` — condition `" << escapeCell(report.condition) << "`";
  if (!report.models.empty() && report.models[0].original.quant == litmus::Condition::Quant::Forall)
    os << " (bad outcome: its negation)";
  os << "\n\n";
  os << "| | ";
  for (size_t m = 0; m < report.models.size(); ++m) os << (m ? " | " : "") << "`" << report.models[m].model << "`";
  os << " |\n|---|";
  for (size_t m = 0; m < report.models.size(); ++m) os << "---|";
  os << "\n| **original verdict** | ";
  for (size_t m = 0; m < report.models.size(); ++m) {
    const auto& ma = report.models[m];
    os << (m ? " | " : "") << escapeCell(verdictSummary(ma.original))
       << (ma.badReachable ? " (bad outcome reachable)" : "");
  }
  os << " |\n";
  for (size_t s = 0; s < report.sites.size(); ++s) {
    os << "| " << report.sites[s].id << ": `" << escapeCell(report.sites[s].label) << "` | ";
    for (size_t m = 0; m < report.models.size(); ++m) {
      const auto& sr = report.models[m].sites[s];
      std::string cell = toString(sr.necessity);
      if (isNeeded(sr.necessity)) cell = "**" + cell + "**";
      if (sr.necessity == Necessity::Error)
        cell += ": " + sr.note;
      else if (sr.necessity != Necessity::OriginalFails &&  // the original-verdict row says why
               (sr.necessity != Necessity::Redundant || !sr.note.empty()))
        cell += " (" + verdictSummary(sr.mutant) + ")";
      os << (m ? " | " : "") << escapeCell(cell);
    }
    os << " |\n";
  }
  if (report.sites.empty())
    os << "| (no synchronisation instructions) |" << std::string(report.models.size(), '|') << "\n";
  os << "\n";
  // One picture per necessary site: the first model under which it is necessary.
  bool any = false;
  for (size_t s = 0; s < report.sites.size(); ++s) {
    std::vector<std::string> needIn;
    const WitnessFiles::Entry* pic = nullptr;
    size_t picModel = 0;
    for (size_t m = 0; m < report.models.size(); ++m) {
      const auto& sr = report.models[m].sites[s];
      if (!isNeeded(sr.necessity)) continue;
      needIn.push_back(report.models[m].model);
      if (!pic && files) {
        pic = files->find(s, m);
        picModel = m;
      }
    }
    if (needIn.empty()) continue;
    any = true;
    std::string models;
    for (const auto& n : needIn) models += (models.empty() ? "`" : ", `") + n + "`";
    os << "* **" << report.sites[s].id << "** (`" << report.sites[s].label << "`) is "
       << "necessary under " << models;
    if (pic) {
      const auto& sr = report.models[picModel].sites[s];
      os << ". Without it (" << report.models[picModel].model << ", " << toString(sr.necessity) << "): state `"
         << (sr.witness ? sr.mutant.states[*sr.witness].key : std::string("?")) << "`";
      if (!pictureBase.empty())
        os << "\n\n  ![" << report.testName << " without " << report.sites[s].id << "](" << pictureBase << "/"
           << pic->file << ")";
    }
    os << "\n";
  }
  if (!any) os << "No single synchronisation instruction is necessary under any model.\n";
  os << "\n";
}

}  // namespace ptxmm::analysis
