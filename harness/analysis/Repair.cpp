// Repair synthesis (see Repair.hpp).
#include "analysis/Repair.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "check/Checker.hpp"
#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"
#include "support/Parallel.hpp"

namespace ptxmm::analysis {

namespace {

using ptx::OpId;
using ptx::Scope;
using ptx::Sem;

/// A candidate edit: its cheapest-to-find (strongest) form, then weaker forms tried once a repair holds.
struct Candidate {
  EditClass cls = EditClass::ProxyFence;
  std::vector<RepairEdit> forms;  ///< forms.front() is searched; the rest are weaker, weakest first
  int cost = 0;                   ///< editCost of its class (both classes for a strengthen-and-widen)
  int insertedAfter = -1;         ///< a fence insertion's point (two fences at one point never combine)
  int replacedLine = 0;           ///< a replacement's line (two replacements of one line never combine)
};

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      lines.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

std::string joinLines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

std::string indentOf(const std::string& line) {
  size_t n = 0;
  while (n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return line.substr(0, n);
}

bool isSyncRelevant(const litmus::Stmt& s) {
  if (!s.instr) return false;
  switch (ptx::roleOf(ptx::opInfo(s.instr->op).family)) {
    case ptx::FamilyRole::Local:
    case ptx::FamilyRole::Control: return false;
    case ptx::FamilyRole::Access:
    case ptx::FamilyRole::Fence:
    case ptx::FamilyRole::Wait:
    case ptx::FamilyRole::Sync: return true;
  }
  return false;
}

/// Whether every instruction of `test` sits alone on its own line of `lines` (so that the text can be
/// edited line by line).
bool lineEditable(const litmus::Test& test, const std::vector<std::string>& lines) {
  std::set<int> seen;
  for (const auto& th : test.threads)
    for (const auto& s : th.code) {
      if (!s.instr) continue;
      int l = s.src.line;
      if (l <= 0 || l > static_cast<int>(lines.size()) || !seen.insert(l).second) return false;
      const std::string& text = lines[static_cast<size_t>(l - 1)];
      std::string code = text.substr(0, text.find("//"));
      if (std::count(code.begin(), code.end(), ';') > 1 || code.find('|') != std::string::npos) return false;
    }
  return true;
}

/// The narrowest scope that contains every thread of the test.
Scope testScope(const litmus::Test& test) {
  std::set<int> ctas, clusters, gpus;
  for (const auto& th : test.threads) {
    ctas.insert(th.where.cta);
    clusters.insert(th.where.cluster);
    gpus.insert(th.where.gpu);
  }
  if (ctas.size() <= 1) return Scope::Cta;
  if (clusters.size() <= 1) return Scope::Cluster;
  if (gpus.size() <= 1) return Scope::Gpu;
  return Scope::Sys;
}

/// Scopes narrower than `s`, narrowest first.
std::vector<Scope> narrowerScopes(Scope s) {
  std::vector<Scope> out;
  for (Scope x : {Scope::Cta, Scope::Cluster, Scope::Gpu})
    if (static_cast<int>(x) < static_cast<int>(s)) out.push_back(x);
  return out;
}

std::string scopeName(Scope s) { return std::string(ptx::toString(s)); }

/// Builds the candidate edits of a test whose lines are `lines` (the test's instructions sit alone on
/// their lines).
class CandidateBuilder {
 public:
  CandidateBuilder(const litmus::Test& test, const std::vector<std::string>& lines)
      : test_(test), lines_(lines), scope_(testScope(test)) {
    for (const auto& th : test.threads)
      for (const auto& s : th.code)
        if (s.instr) {
          auto proxy = ptx::opInfo(s.instr->op).proxy;
          if (proxy == ptx::Proxy::Async || ptx::opInfo(s.instr->op).family == ptx::OpFamily::Clc) hasAsync_ = true;
          if (proxy == ptx::Proxy::Surface || proxy == ptx::Proxy::Texture || proxy == ptx::Proxy::Constant)
            otherProxies_.insert(std::string(ptx::toString(proxy)));
          if (s.instr->op == OpId::CpAsyncBulkTensor) {
            hasAsync_ = true;
            for (const auto& o : s.instr->operands)
              if (o.kind == litmus::Operand::Kind::Addr && !o.elems.empty() && o.baseReg.empty()) {
                litmus::Operand map;
                map.kind = litmus::Operand::Kind::Addr;
                map.loc = o.loc;
                tensorMaps_.insert(litmus::printOperand(map));
              }
          }
        }
    for (const auto& l : test.locations) {
      if (!l.aliasOf.empty() && l.aliasProxy == ptx::Proxy::Generic) hasAlias_ = true;
      if (!l.aliasOf.empty() && l.aliasProxy != ptx::Proxy::Generic)
        otherProxies_.insert(std::string(ptx::toString(l.aliasProxy)));
    }
  }

  std::vector<Candidate> build() {
    for (size_t t = 0; t < test_.threads.size(); ++t) {
      threadInsertions(t);
      threadReplacements(t);
    }
    barriers();
    return std::move(out_);
  }

 private:
  const litmus::Test& test_;
  const std::vector<std::string>& lines_;
  Scope scope_;
  bool hasAsync_ = false;
  bool hasAlias_ = false;
  std::set<std::string> otherProxies_;
  std::set<std::string> tensorMaps_;  ///< `[tmap]`: the tensor maps the test's TMA operations read
  std::vector<Candidate> out_;

  /// The text position of "before statement i of thread t" (after the line before it), skipping back over
  /// labels so that a loop starting there is not entered; i == code.size(): after the thread's last line.
  struct Point {
    int after = 0;       ///< insert after this line
    std::string indent;  ///< indentation of the neighbouring instruction
    std::string where;   ///< "P1 before l.12" / "P1 at the end"
  };

  Point pointBefore(size_t t, size_t i) const {
    const auto& code = test_.threads[t].code;
    size_t p = i;
    while (p > 0 && !code[p - 1].instr) --p;
    Point pt;
    if (i < code.size()) {
      int line = code[p].src.line;
      pt.after = line - 1;
      pt.indent = indentOf(lines_[static_cast<size_t>(code[i].src.line - 1)]);
      pt.where = fmt::format("{} before l.{}", test_.threads[t].name, line);
    } else {
      int line = code.back().src.line;
      pt.after = line;
      pt.indent = indentOf(lines_[static_cast<size_t>(line - 1)]);
      pt.where = fmt::format("{} at the end", test_.threads[t].name);
    }
    return pt;
  }

  RepairEdit insertion(EditClass cls, const Point& pt, const std::vector<std::string>& instrs) const {
    RepairEdit e;
    e.cls = cls;
    TextEdit te;
    te.line = pt.after;
    std::string shown;
    for (const auto& in : instrs) {
      bool label = !in.empty() && in.back() == ':';
      te.lines.push_back((label ? pt.indent.substr(0, pt.indent.size() >= 4 ? pt.indent.size() - 4 : 0) : pt.indent) +
                         in);
      shown += (shown.empty() ? "" : " ") + in;
    }
    e.text.push_back(std::move(te));
    e.what = fmt::format("insert `{}` in {}", shown, pt.where);
    return e;
  }

  void addInsertion(EditClass cls, const Point& pt, const std::vector<std::vector<std::string>>& forms) {
    Candidate c;
    c.cls = cls;
    c.cost = editCost(cls);
    if (cls == EditClass::ProxyFence || cls == EditClass::Fence || cls == EditClass::FenceSc)
      c.insertedAfter = pt.after;
    for (const auto& f : forms) c.forms.push_back(insertion(cls, pt, f));
    out_.push_back(std::move(c));
  }

  /// Fences between two synchronisation-relevant instructions; waits before any of them.
  void threadInsertions(size_t t) {
    const auto& th = test_.threads[t];
    std::vector<size_t> relevant;
    for (size_t i = 0; i < th.code.size(); ++i)
      if (isSyncRelevant(th.code[i])) relevant.push_back(i);
    bool cpAsyncSeen = false, bulkGroupSeen = false, bulkCommitted = false;
    for (size_t k = 0; k < relevant.size(); ++k) {
      Point pt = pointBefore(t, relevant[k]);
      if (k > 0) fences(pt);
      waits(t, pt, cpAsyncSeen, bulkGroupSeen, bulkCommitted);
      const auto& in = *th.code[relevant[k]].instr;
      if (in.op == OpId::CpAsync) cpAsyncSeen = true;
      if ((in.op == OpId::CpAsyncBulk || in.op == OpId::CpAsyncBulkTensor) && in.hasFlag("bulk_group")) {
        bulkGroupSeen = true;
        bulkCommitted = false;
      }
      if (in.op == OpId::CpAsyncBulkCommit) bulkCommitted = true;
      if (in.op == OpId::CpAsyncWaitAll || in.op == OpId::CpAsyncWaitGroup) cpAsyncSeen = false;
    }
  }

  void fences(const Point& pt) {
    if (hasAsync_) {
      // The bi-directional fence of every state space, then one state space, then (in a cluster) the
      // uni-directional release/acquire forms restricted to shared memory.
      std::vector<std::vector<std::string>> forms{{"fence.proxy.async;"},
                                                  {"fence.proxy.async.shared::cta;"},
                                                  {"fence.proxy.async.global;"},
                                                  {"fence.proxy.async.shared::cluster;"}};
      if (scope_ != Scope::Cta) {
        forms.push_back({"fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;"});
        forms.push_back({"fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;"});
      }
      addInsertion(EditClass::ProxyFence, pt, forms);
    }
    // The tensor-map proxy: release after writing a map, acquire of the map before the TMA that reads it.
    if (!tensorMaps_.empty()) {
      std::vector<std::vector<std::string>> rel{{"fence.proxy.tensormap::generic.release." + scopeName(scope_) + ";"}};
      for (Scope s : narrowerScopes(scope_))
        rel.push_back({"fence.proxy.tensormap::generic.release." + scopeName(s) + ";"});
      addInsertion(EditClass::ProxyFence, pt, rel);
      for (const auto& m : tensorMaps_) {
        std::vector<std::vector<std::string>> acq{
            {"fence.proxy.tensormap::generic.acquire." + scopeName(scope_) + " " + m + ", 128;"}};
        for (Scope s : narrowerScopes(scope_))
          acq.push_back({"fence.proxy.tensormap::generic.acquire." + scopeName(s) + " " + m + ", 128;"});
        addInsertion(EditClass::ProxyFence, pt, acq);
      }
    }
    if (hasAlias_) addInsertion(EditClass::ProxyFence, pt, {{"fence.proxy.alias;"}});
    for (const auto& p : otherProxies_) addInsertion(EditClass::ProxyFence, pt, {{"fence.proxy." + p + ";"}});
    std::vector<std::vector<std::string>> acqRel{{"fence.acq_rel." + scopeName(scope_) + ";"}};
    std::vector<std::vector<std::string>> sc{{"fence.sc." + scopeName(scope_) + ";"}};
    for (Scope s : narrowerScopes(scope_)) {
      acqRel.push_back({"fence.acq_rel." + scopeName(s) + ";"});
      sc.push_back({"fence.sc." + scopeName(s) + ";"});
    }
    addInsertion(EditClass::Fence, pt, acqRel);
    addInsertion(EditClass::FenceSc, pt, sc);
  }

  void waits(size_t t, const Point& pt, bool cpAsync, bool bulkGroup, bool bulkCommitted) {
    if (cpAsync) addInsertion(EditClass::Wait, pt, {{"cp.async.wait_all;"}});
    if (bulkGroup) {
      std::vector<std::string> full, read;
      if (!bulkCommitted) {
        full.push_back("cp.async.bulk.commit_group;");
        read.push_back("cp.async.bulk.commit_group;");
      }
      full.push_back("cp.async.bulk.wait_group 0;");
      read.push_back("cp.async.bulk.wait_group.read 0;");
      addInsertion(EditClass::Wait, pt, {full, read});
    }
    // A try_wait loop on each mbarrier of the thread's CTA, for either parity.
    const auto& th = test_.threads[t];
    for (const auto& l : test_.locations) {
      if (!l.isMbarrier || (l.ownerCta >= 0 && l.ownerCta != th.where.cta)) continue;
      for (int parity : {0, 1}) {
        addInsertion(EditClass::Wait, pt, {mbarrierWaitLoop(l.name, parity, pt.after + 1)});
      }
    }
  }

  RepairEdit replacement(EditClass cls, size_t t, const litmus::Instr& before, const litmus::Instr& after) const {
    RepairEdit e;
    e.cls = cls;
    int line = before.src.line;
    const std::string& old = lines_[static_cast<size_t>(line - 1)];
    std::string prefix = indentOf(old);
    // Keep a label written on the same line (`w0: mbarrier.try_wait...`).
    std::string body = old.substr(prefix.size());
    size_t colon = body.find(':');
    std::string firstWord = body.substr(0, body.find_first_of(" \t"));
    if (colon != std::string::npos && colon + 1 < body.size() && colon < firstWord.size() &&
        (body[colon + 1] == ' ' || body[colon + 1] == '\t'))
      prefix += body.substr(0, colon + 2);
    std::string comment;
    if (auto c = old.find("//"); c != std::string::npos) comment = " " + old.substr(c);
    e.text.push_back({true, line, {prefix + litmus::printInstr(after) + ";" + comment}});
    e.what = fmt::format("{} l.{}: `{}` → `{}`", test_.threads[t].name, line, litmus::printInstr(before),
                         litmus::printInstr(after));
    return e;
  }

  void addReplacement(EditClass cls, size_t t, const litmus::Instr& in, const std::vector<litmus::Instr>& forms) {
    Candidate c;
    c.cls = cls;
    c.cost = editCost(cls);
    c.replacedLine = in.src.line;
    for (const auto& f : forms) c.forms.push_back(replacement(cls, t, in, f));
    out_.push_back(std::move(c));
  }

  /// The acquire/release form of a relaxed or weak instruction (nullopt if it has none).
  static std::optional<Sem> strongerSem(const litmus::Instr& in) {
    bool weakish = in.sem == Sem::Relaxed || in.sem == Sem::Weak || in.sem == Sem::None;
    switch (in.op) {
      case OpId::Ld: return weakish ? std::optional(Sem::Acquire) : std::nullopt;
      case OpId::St:
      case OpId::Red: return weakish ? std::optional(Sem::Release) : std::nullopt;
      case OpId::Atom: return weakish ? std::optional(Sem::AcqRel) : std::nullopt;
      case OpId::MbarrierArrive:
      case OpId::MbarrierArriveDrop:
      case OpId::BarrierClusterArrive: return in.sem == Sem::Relaxed ? std::optional(Sem::Release) : std::nullopt;
      case OpId::MbarrierTryWait:
      case OpId::MbarrierTestWait: return in.sem == Sem::Relaxed ? std::optional(Sem::Acquire) : std::nullopt;
      default: return std::nullopt;
    }
  }

  static bool scoped(const litmus::Instr& in) {
    switch (in.op) {
      case OpId::Ld:
      case OpId::St:
      case OpId::Atom:
      case OpId::Red:
      case OpId::MbarrierArrive:
      case OpId::MbarrierArriveDrop:
      case OpId::MbarrierTryWait:
      case OpId::MbarrierTestWait:
      case OpId::Fence: return true;
      default: return false;
    }
  }

  void threadReplacements(size_t t) {
    const auto& th = test_.threads[t];
    for (const auto& s : th.code) {
      if (!s.instr || !isSyncRelevant(s)) continue;
      const litmus::Instr& in = *s.instr;
      // Strengthen: release/acquire at the instruction's scope (the test's scope for a weak access).
      if (auto sem = strongerSem(in)) {
        std::vector<litmus::Instr> forms;
        auto make = [&](Sem x, Scope sc) {
          litmus::Instr f = in;
          f.sem = x;
          if (f.scope == Scope::None && in.op != OpId::BarrierClusterArrive) f.scope = sc;
          return f;
        };
        Scope base = in.scope == Scope::None ? scope_ : in.scope;
        forms.push_back(make(*sem, base));
        if (*sem == Sem::AcqRel) {
          forms.insert(forms.begin() + 1, make(Sem::Release, base));
          forms.insert(forms.begin() + 1, make(Sem::Acquire, base));
        }
        if (in.scope == Scope::None)
          for (Scope sc : narrowerScopes(scope_)) forms.push_back(make(*sem, sc));
        addReplacement(EditClass::Strengthen, t, in, forms);
        // Strengthened and widened at once (a relaxed.cta access that needs acquire.gpu).
        if (in.scope != Scope::None && static_cast<int>(in.scope) < static_cast<int>(scope_)) {
          litmus::Instr f = make(*sem, scope_);
          f.scope = scope_;
          addReplacement(EditClass::Strengthen, t, in, {f});
          out_.back().cost += editCost(EditClass::Widen);
        }
      }
      // Widen: the test's scope, then the scopes in between.
      if (scoped(in) && in.scope != Scope::None && static_cast<int>(in.scope) < static_cast<int>(scope_)) {
        std::vector<litmus::Instr> forms;
        litmus::Instr f = in;
        f.scope = scope_;
        forms.push_back(f);
        for (Scope sc : narrowerScopes(scope_))
          if (static_cast<int>(sc) > static_cast<int>(in.scope)) {
            f.scope = sc;
            forms.push_back(f);
          }
        addReplacement(EditClass::Widen, t, in, forms);
      }
      // Flip the parity of a parity wait.
      if ((in.op == OpId::MbarrierTryWait || in.op == OpId::MbarrierTestWait) && in.hasFlag("parity") &&
          in.operands.size() >= 3 && in.operands[2].kind == litmus::Operand::Kind::Imm &&
          (in.operands[2].imm == 0 || in.operands[2].imm == 1)) {
        litmus::Instr f = in;
        f.operands[2].imm = 1 - in.operands[2].imm;
        addReplacement(EditClass::Parity, t, in, {f});
        // Keep the user's spelling: only the parity operand changes.
        out_.back().forms.front().what = fmt::format("{} l.{}: wait for parity {} instead of {}", th.name, in.src.line,
                                                     1 - in.operands[2].imm, in.operands[2].imm);
        auto& te = out_.back().forms.front().text.front();
        const std::string& old = lines_[static_cast<size_t>(in.src.line - 1)];
        size_t semi = old.find(';');
        size_t digit = semi == std::string::npos ? std::string::npos : old.find_last_of("01", semi);
        if (digit != std::string::npos && old.find_last_not_of(" \t", semi - 1) == digit)
          te.lines = {old.substr(0, digit) + (old[digit] == '0' ? "1" : "0") + old.substr(digit + 1)};
      }
    }
  }

  /// bar.sync in every thread of a CTA (one point per thread, between the same existing CTA barriers), and
  /// barrier.cluster.arrive + wait in every thread of a cluster.
  void barriers() {
    std::map<int, std::vector<size_t>> byCta, byCluster;
    for (size_t t = 0; t < test_.threads.size(); ++t) {
      byCta[test_.threads[t].where.cta].push_back(t);
      byCluster[test_.threads[t].where.cluster].push_back(t);
    }
    for (const auto& [cta, threads] : byCta)
      if (threads.size() >= 2) groupBarrier(threads, {"bar.sync 0;"}, true, fmt::format("CTA {}", cta));
    for (const auto& [cl, threads] : byCluster) {
      std::set<int> ctas;
      for (size_t t : threads) ctas.insert(test_.threads[t].where.cta);
      if (ctas.size() >= 2)
        groupBarrier(threads, {"barrier.cluster.arrive;", "barrier.cluster.wait;"}, false,
                     fmt::format("cluster {}", cl));
    }
  }

  /// Every consistent choice of one point per thread (the same number of the group's barriers before
  /// it), at most kMaxBarrierChoices of them.
  void groupBarrier(const std::vector<size_t>& threads, const std::vector<std::string>& instrs, bool cta,
                    const std::string& unit) {
    constexpr size_t kMaxBarrierChoices = 256;
    struct Pos {
      Point pt;
      int before = 0;  // existing group barriers before the point
    };
    std::vector<std::vector<Pos>> perThread;
    for (size_t t : threads) {
      const auto& code = test_.threads[t].code;
      std::vector<Pos> ps;
      int seen = 0;
      for (size_t i = 0; i <= code.size(); ++i) {
        if (i < code.size() && !isSyncRelevant(code[i])) continue;
        if (code.empty()) break;
        ps.push_back({pointBefore(t, i), seen});
        if (i < code.size()) {
          auto op = code[i].instr->op;
          if (cta ? (op == OpId::BarSync || op == OpId::BarArrive) : op == OpId::BarrierClusterWait) ++seen;
        }
      }
      if (ps.empty()) return;
      perThread.push_back(std::move(ps));
    }
    std::vector<size_t> idx(perThread.size(), 0);
    size_t made = 0;
    while (made < kMaxBarrierChoices) {
      bool consistent = true;
      for (size_t k = 1; k < idx.size(); ++k)
        if (perThread[k][idx[k]].before != perThread[0][idx[0]].before) consistent = false;
      if (consistent) {
        Candidate c;
        c.cls = EditClass::Barrier;
        c.cost = editCost(EditClass::Barrier);
        RepairEdit e;
        e.cls = EditClass::Barrier;
        std::string where;
        std::string shown;
        for (const auto& in : instrs) shown += (shown.empty() ? "" : " ") + in;
        for (size_t k = 0; k < idx.size(); ++k) {
          const Pos& p = perThread[k][idx[k]];
          TextEdit te;
          te.line = p.pt.after;
          for (const auto& in : instrs) te.lines.push_back(p.pt.indent + in);
          e.text.push_back(std::move(te));
          where += (where.empty() ? "" : ", ") + p.pt.where;
        }
        e.what = fmt::format("insert `{}` in every thread of {}: {}", shown, unit, where);
        c.forms.push_back(std::move(e));
        out_.push_back(std::move(c));
        ++made;
      }
      size_t k = 0;
      while (k < idx.size() && ++idx[k] == perThread[k].size()) idx[k++] = 0;
      if (k == idx.size()) break;
    }
  }
};

/// Whether a set of edits is not worth checking: two replacements of one line, or two fences of one kind
/// (proxy, acq_rel, sc) at one point (the stronger one alone does as much), or an acq_rel and an sc fence
/// at one point.
bool conflicts(const std::vector<const Candidate*>& set) {
  std::set<int> lines;
  std::set<std::pair<int, bool>> fences;  // (point, proxy fence?)
  for (const auto* c : set) {
    if (c->replacedLine && !lines.insert(c->replacedLine).second) return true;
    if (c->insertedAfter >= 0 && !fences.insert({c->insertedAfter, c->cls == EditClass::ProxyFence}).second)
      return true;
  }
  return false;
}

bool isClean(const check::Verdict& v) {
  return v.status == check::Status::Ok && !badOutcomeReachable(v) && v.flags.empty();
}

/// How far a patched test is repaired, relative to the original.
RepairGrade grade(const check::Verdict& v, const check::Verdict& original) {
  if (v.status != check::Status::Ok || badOutcomeReachable(v)) return RepairGrade::None;
  if (v.flags.empty()) return RepairGrade::Clean;
  if (!badOutcomeReachable(original)) return RepairGrade::None;
  for (const auto& f : v.flags)
    if (!original.flags.count(f)) return RepairGrade::None;
  return RepairGrade::Outcome;
}

std::string describeProblem(const check::Verdict& v) {
  std::string s;
  if (badOutcomeReachable(v))
    s += fmt::format("the bad outcome of `{}` is reachable ({})", v.condition, outcome::toString(v.observation));
  for (const auto& f : check::findings(v)) {
    if (!s.empty()) s += "; ";
    s += (f.check == f.flag ? f.flag : f.flag + " (" + f.check + ")") + ": " + f.text();
  }
  for (const auto& flag : v.flags) {
    bool named = false;
    for (const auto& f : check::findings(v)) named = named || f.flag == flag;
    if (!named) s += (s.empty() ? "" : "; ") + flag;
  }
  return s;
}

struct Applied {
  std::vector<TextEdit> edits;
  std::string text;
};

Applied applyEdits(const std::vector<std::string>& base, const std::vector<const RepairEdit*>& edits) {
  Applied a;
  for (const auto* e : edits) a.edits.insert(a.edits.end(), e->text.begin(), e->text.end());
  a.text = joinLines(applyTextEdits(base, a.edits));
  return a;
}

}  // namespace

int editCost(EditClass c) {
  switch (c) {
    case EditClass::ProxyFence:
    case EditClass::Parity: return 1;
    case EditClass::Strengthen:
    case EditClass::Widen:
    case EditClass::Fence: return 2;
    case EditClass::FenceSc:
    case EditClass::Wait: return 3;
    case EditClass::Barrier: return 4;
  }
  return 4;
}

std::string toString(EditClass c) {
  switch (c) {
    case EditClass::ProxyFence: return "proxy fence";
    case EditClass::Parity: return "parity";
    case EditClass::Strengthen: return "release/acquire";
    case EditClass::Widen: return "scope";
    case EditClass::Fence: return "fence";
    case EditClass::FenceSc: return "sc fence";
    case EditClass::Wait: return "wait";
    case EditClass::Barrier: return "barrier";
  }
  return "?";
}

namespace {

/// The edit script of `edits` on `base`: (' ' kept | '-' removed | '+' added, text), in order.
std::vector<std::pair<char, std::string>> editScript(const std::vector<std::string>& base,
                                                     const std::vector<TextEdit>& edits) {
  std::map<int, std::vector<const TextEdit*>> inserts;
  std::map<int, const TextEdit*> replaces;
  for (const auto& e : edits) {
    if (e.replace)
      replaces[e.line] = &e;
    else
      inserts[e.line].push_back(&e);
  }
  std::vector<std::pair<char, std::string>> script;
  auto emitInserts = [&](int after) {
    if (auto it = inserts.find(after); it != inserts.end())
      for (const auto* e : it->second)
        for (const auto& l : e->lines) script.emplace_back('+', l);
  };
  emitInserts(0);
  for (size_t i = 0; i < base.size(); ++i) {
    int line = static_cast<int>(i) + 1;
    if (auto it = replaces.find(line); it != replaces.end()) {
      script.emplace_back('-', base[i]);
      for (const auto& l : it->second->lines) script.emplace_back('+', l);
    } else {
      script.emplace_back(' ', base[i]);
    }
    emitInserts(line);
  }
  return script;
}

}  // namespace

std::vector<std::string> applyTextEdits(const std::vector<std::string>& base, const std::vector<TextEdit>& edits) {
  std::vector<std::string> out;
  for (auto& [op, text] : editScript(base, edits))
    if (op != '-') out.push_back(std::move(text));
  return out;
}

std::string unifiedDiff(const std::vector<std::string>& base, const std::vector<TextEdit>& edits,
                        const std::string& fromName, const std::string& toName) {
  const std::vector<std::pair<char, std::string>> script = editScript(base, edits);
  // Hunks: changed entries with 3 entries of context, merged when they overlap.
  constexpr size_t kContext = 3;
  std::string out = fmt::format("--- {}\n+++ {}\n", fromName, toName);
  size_t i = 0;
  while (i < script.size()) {
    if (script[i].first == ' ') {
      ++i;
      continue;
    }
    size_t start = i >= kContext ? i - kContext : 0;
    size_t end = i;  // one past the last changed entry of the hunk
    size_t j = i;
    while (j < script.size()) {
      if (script[j].first != ' ') {
        end = j + 1;
        ++j;
        continue;
      }
      size_t k = j;
      while (k < script.size() && script[k].first == ' ') ++k;
      if (k < script.size() && k - j <= 2 * kContext) {
        j = k;
        continue;
      }
      break;
    }
    size_t stop = std::min(script.size(), end + kContext);
    // Line numbers of the hunk in the old and new texts.
    size_t oldLine = 1, newLine = 1;
    for (size_t k = 0; k < start; ++k) {
      if (script[k].first != '+') ++oldLine;
      if (script[k].first != '-') ++newLine;
    }
    size_t oldCount = 0, newCount = 0;
    for (size_t k = start; k < stop; ++k) {
      if (script[k].first != '+') ++oldCount;
      if (script[k].first != '-') ++newCount;
    }
    out += fmt::format("@@ -{},{} +{},{} @@\n", oldCount ? oldLine : oldLine - 1, oldCount,
                       newCount ? newLine : newLine - 1, newCount);
    for (size_t k = start; k < stop; ++k) out += std::string(1, script[k].first) + script[k].second + "\n";
    i = stop;
  }
  return out;
}

RepairReport repairTest(const litmus::Test& test, const std::vector<NamedModel>& models, const RepairOptions& options,
                        const std::string& givenText) {
  auto started = std::chrono::steady_clock::now();
  RepairReport rep;
  rep.testName = test.name;
  rep.file = test.file;
  if (models.empty()) {
    rep.error = "no model";
    return rep;
  }
  rep.model = models.front().name;
  const auto& model = models.front();

  // The text the diffs are against: the test's own when its instructions sit on their own lines.
  std::string text = givenText;
  if (text.empty() && !test.file.empty()) {
    std::ifstream in(test.file, std::ios::binary);
    if (in) text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::vector<std::string> lines = splitLines(text);
  litmus::Test base = test;
  if (text.empty() || !lineEditable(test, lines)) {
    rep.canonicalText = true;
    text = litmus::printCanonical(test);
    lines = splitLines(text);
    auto parsed = litmus::tryParseTest(text, test.file);
    if (!parsed.ok()) {
      rep.error = "the canonical form of the test does not read back: " +
                  (parsed.diagnostics.empty() ? std::string("?") : parsed.diagnostics.front().str());
      return rep;
    }
    base = *parsed.test;
    if (!lineEditable(base, lines)) {
      rep.error = "the canonical form has several instructions on one line";
      return rep;
    }
  }

  check::Checker mainChecker;
  rep.original = mainChecker.check(base, model.model, model.name, options.check);
  if (rep.original.status != check::Status::Ok) {
    rep.error = verdictSummary(rep.original);
    return rep;
  }
  if (isClean(rep.original)) {
    rep.clean = true;
    rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return rep;
  }
  rep.problem = describeProblem(rep.original);

  CandidateBuilder builder(base, lines);
  std::vector<Candidate> cands = builder.build();
  auto costOf = [&](size_t i) { return cands[i].cost; };
  rep.candidates = cands.size();

  // Candidate sets by cost (then size, then index), up to maxEdits edits and maxCost. Generation stops at
  // kMaxSets sets (the search then says it was cut short).
  constexpr size_t kMaxSets = 2'000'000;
  std::vector<std::vector<size_t>> sets;
  std::vector<size_t> cur;
  bool cut = false;
  std::function<void(size_t, int)> extend = [&](size_t from, int cost) {
    if (!cur.empty()) sets.push_back(cur);
    if (static_cast<int>(cur.size()) >= options.maxEdits) return;
    for (size_t i = from; i < cands.size() && !cut; ++i) {
      int c = cost + costOf(i);
      if (c > options.maxCost) continue;
      if (sets.size() >= kMaxSets) {
        cut = true;
        return;
      }
      cur.push_back(i);
      extend(i + 1, c);
      cur.pop_back();
    }
  };
  extend(0, 0);
  auto setCost = [&](const std::vector<size_t>& s) {
    int c = 0;
    for (size_t i : s) c += costOf(i);
    return c;
  };
  std::stable_sort(sets.begin(), sets.end(), [&](const auto& a, const auto& b) {
    int ca = setCost(a), cb = setCost(b);
    return ca != cb ? ca < cb : a.size() < b.size();
  });

  auto check = [&](const std::string& patched, const NamedModel& nm, check::Checker& checker) {
    auto parsed = litmus::tryParseTest(patched, test.file);
    if (!parsed.ok()) {
      check::Verdict v;
      v.status = check::Status::Error;
      v.message = parsed.diagnostics.empty() ? "does not parse" : parsed.diagnostics.front().str();
      return v;
    }
    return checker.check(*parsed.test, nm.model, nm.name, options.check);
  };

  std::vector<std::unique_ptr<check::Checker>> checkers(static_cast<size_t>(maxWorkers()) + 1);
  // Clean repairs of the first level that has any; failing those, outcome-only repairs of the first level
  // that has any (the search goes on looking for clean ones up to the limits).
  std::vector<std::vector<size_t>> found, outcomeOnly;
  size_t pos = 0;
  while (pos < sets.size()) {
    int level = setCost(sets[pos]);
    size_t end = pos;
    while (end < sets.size() && setCost(sets[end]) == level) ++end;
    std::vector<size_t> todo;
    for (size_t k = pos; k < end; ++k) {
      std::vector<const Candidate*> s;
      for (size_t i : sets[k]) s.push_back(&cands[i]);
      if (!conflicts(s)) todo.push_back(k);
    }
    if (rep.checks + todo.size() > options.maxChecks) {
      todo.resize(options.maxChecks - rep.checks);
      rep.stopped = fmt::format("stopped at cost {} after {} checks (--max-checks)", level, options.maxChecks);
    }
    std::vector<RepairGrade> grades(todo.size(), RepairGrade::None);
    parallelFor(todo.size(), options.jobs, [&](size_t i, int w) {
      auto& checker = checkers[static_cast<size_t>(w)];
      if (!checker) checker = std::make_unique<check::Checker>();
      std::vector<const RepairEdit*> edits;
      for (size_t c : sets[todo[i]]) edits.push_back(&cands[c].forms.front());
      grades[i] = grade(check(applyEdits(lines, edits).text, model, *checker), rep.original);
    });
    rep.checks += todo.size();
    bool firstOutcomeLevel = outcomeOnly.empty();
    for (size_t i = 0; i < todo.size(); ++i) {
      if (grades[i] == RepairGrade::Clean) found.push_back(sets[todo[i]]);
      if (grades[i] == RepairGrade::Outcome && firstOutcomeLevel) outcomeOnly.push_back(sets[todo[i]]);
    }
    if (!found.empty() || !rep.stopped.empty()) break;
    pos = end;
  }
  RepairGrade wanted = RepairGrade::Clean;
  if (found.empty() && !outcomeOnly.empty()) {
    found = std::move(outcomeOnly);
    wanted = RepairGrade::Outcome;
  }
  if (found.empty() && rep.stopped.empty() && cut)
    rep.stopped = fmt::format("no repair among the first {} candidate sets (the search space was cut there)", kMaxSets);
  if (found.empty() && rep.stopped.empty())
    rep.stopped = fmt::format("no repair of at most {} edits and cost {} ({} candidate edits)", options.maxEdits,
                              options.maxCost, cands.size());

  // Weaken each edit of each repair while it still verifies; drop repairs that end up identical.
  std::set<std::string> seenTexts;
  for (const auto& set : found) {
    std::vector<const RepairEdit*> chosen;
    for (size_t c : set) chosen.push_back(&cands[c].forms.front());
    for (size_t k = 0; k < set.size(); ++k) {
      const auto& forms = cands[set[k]].forms;
      for (size_t f = 1; f < forms.size(); ++f) {
        auto trial = chosen;
        trial[k] = &forms[f];
        ++rep.checks;
        if (grade(check(applyEdits(lines, trial).text, model, mainChecker), rep.original) == wanted) {
          chosen = trial;
          break;
        }
      }
    }
    Applied a = applyEdits(lines, chosen);
    if (!seenTexts.insert(a.text).second) continue;
    Repair r;
    r.grade = wanted;
    r.cost = setCost(set);
    for (const auto* e : chosen) r.edits.push_back(*e);
    r.text = a.text;
    std::string name = rep.canonicalText ? test.file + " (canonical form)" : test.file;
    bool absolute = !name.empty() && name.front() == '/';
    r.diff = unifiedDiff(lines, a.edits, absolute ? name : "a/" + name, absolute ? name : "b/" + name);
    for (const auto& nm : models) {
      check::Verdict v = check(r.text, nm, mainChecker);
      if (&nm == &models.front() && wanted == RepairGrade::Outcome) r.remaining = describeProblem(v);
      r.models.push_back({nm.name, grade(v, rep.original) == wanted, verdictSummary(v)});
    }
    rep.repairs.push_back(std::move(r));
  }
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return rep;
}

void printRepairText(const RepairReport& r, std::ostream& os) {
  os << fmt::format("Test {} ({}) under {}\n", r.testName, r.file, r.model.empty() ? "?" : r.model);
  if (!r.error.empty()) {
    os << "  error: " << r.error << "\n";
    return;
  }
  if (r.clean) {
    os << "  clean: the bad outcome is unreachable and no flag is raised; nothing to repair\n";
    return;
  }
  os << "  problem: " << r.problem << "\n";
  os << fmt::format("  searched {} candidate edits, {} checks, {:.2f} s", r.candidates, r.checks, r.seconds);
  if (!r.stopped.empty()) os << "; " << r.stopped;
  os << "\n";
  if (r.canonicalText)
    os << "  (diffs are against the test's canonical form: its own text has several "
          "instructions on one line)\n";
  for (size_t k = 0; k < r.repairs.size(); ++k) {
    const Repair& rp = r.repairs[k];
    std::string classes;
    for (const auto& e : rp.edits) classes += (classes.empty() ? "" : " + ") + toString(e.cls);
    os << fmt::format("\nrepair {} (cost {}: {}){}\n", k + 1, rp.cost, classes,
                      rp.grade == RepairGrade::Outcome ? ", outcome only" : "");
    for (const auto& e : rp.edits) os << "  " << e.what << "\n";
    if (rp.grade == RepairGrade::Outcome)
      os << "  the bad outcome becomes unreachable but flags of the original remain (no clean repair within the "
            "limits): "
         << rp.remaining << "\n";
    std::string holds, fails;
    for (const auto& m : rp.models) {
      if (m.clean)
        holds += (holds.empty() ? "" : ", ") + m.model;
      else
        fails += (fails.empty() ? "" : ", ") + m.model + " (" + m.summary + ")";
    }
    os << "  " << (rp.grade == RepairGrade::Outcome ? "holds" : "clean") << " under: " << (holds.empty() ? "-" : holds)
       << "\n";
    if (!fails.empty()) os << "  not under: " << fails << "\n";
    os << rp.diff;
  }
}

std::vector<std::string> mbarrierWaitLoop(const std::string& mbar, int parity, int beforeLine,
                                          const std::string& indent) {
  const std::string id = fmt::format("{}{}_l{}", mbar, parity, beforeLine);
  return {"wait_" + id + ":",
          fmt::format("{}mbarrier.try_wait.parity.shared::cta.b64 p_{}, [{}], {};", indent, id, mbar, parity),
          fmt::format("{}@!p_{} bra wait_{};", indent, id, id)};
}

}  // namespace ptxmm::analysis
