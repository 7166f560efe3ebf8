// Coverage and the reasons of unseen allowed states.
#include "campaign/Coverage.hpp"

#include <algorithm>
#include <iomanip>
#include <iterator>
#include <set>

#include "campaign/Campaign.hpp"
#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"
#include "outcome/State.hpp"
#include "report/HwReport.hpp"

namespace ptxmm::campaign {

namespace {

const char* scopeName(ptx::Scope s) {
  switch (s) {
    case ptx::Scope::None: return "";
    case ptx::Scope::Cta: return "cta";
    case ptx::Scope::Cluster: return "cluster";
    case ptx::Scope::Gpu: return "gpu";
    case ptx::Scope::Sys: return "sys";
  }
  return "";
}

/// The narrowest scope that contains every thread of the test (PTX ISA 9.2 §8.5 scope).
ptx::Scope placementScope(const litmus::Test& t) {
  bool cta = true, cluster = true, gpu = true;
  for (const auto& th : t.threads) {
    const auto& a = t.threads.front().where;
    cta = cta && th.where.cta == a.cta;
    cluster = cluster && th.where.cluster == a.cluster;
    gpu = gpu && th.where.gpu == a.gpu;
  }
  return cta ? ptx::Scope::Cta : cluster ? ptx::Scope::Cluster : gpu ? ptx::Scope::Gpu : ptx::Scope::Sys;
}

/// The test's instruction scopes narrower than its placement ("cluster-in-gpu"), if any.
std::string scopeMismatch(const litmus::Test& t, ptx::Scope& narrow, ptx::Scope& wide) {
  wide = placementScope(t);
  narrow = wide;
  for (const auto& th : t.threads)
    for (const auto& st : th.code)
      if (st.instr && st.instr->scope != ptx::Scope::None && st.instr->scope < narrow) narrow = st.instr->scope;
  if (narrow == wide) return "";
  return std::string(scopeName(narrow)) + "-in-" + scopeName(wide);
}

/// Two weak loads of one location by one thread that the state sees returning different values
/// (ptxas may keep one load, and then they never differ).
std::string mergedLoads(const litmus::Test& t, const std::string& state) {
  std::map<std::string, int64_t> values;
  for (const auto& [label, value] : outcome::parseStateKey(state)) values[label] = value;
  for (size_t i = 0; i < t.threads.size(); ++i) {
    std::map<std::string, std::vector<std::string>> loads;  // location -> destination registers
    for (const auto& st : t.threads[i].code) {
      if (!st.instr) continue;
      const auto& in = *st.instr;
      if (in.op != ptx::OpId::Ld || (in.sem != ptx::Sem::None && in.sem != ptx::Sem::Weak)) continue;
      if (in.operands.size() < 2 || in.operands[0].kind != litmus::Operand::Kind::Reg) continue;
      const auto& a = in.operands[1];
      if (a.kind != litmus::Operand::Kind::Addr || !a.baseReg.empty()) continue;
      auto& regs = loads[a.loc.name];
      for (const auto& prev : regs) {
        const std::string r1 = std::to_string(i) + ":" + prev, r2 = std::to_string(i) + ":" + in.operands[0].name;
        if (values.count(r1) && values.count(r2) && values[r1] != values[r2])
          return "P" + std::to_string(i) + " loads " + a.loc.name + " twice with weak ld and the state needs " + r1 +
                 " != " + r2;
      }
      regs.push_back(in.operands[0].name);
    }
  }
  return "";
}

/// The physical location an access names: an alias's or a surface name's target, else the name itself.
std::string physical(const litmus::Test& t, const std::string& name) {
  for (const auto& d : t.locations)
    if (d.name == name) return d.aliasOf.empty() ? name : d.aliasOf;
  return name;
}

/// Operand `role` ("d", "a", "s") of a memory access whose signature has it, or null.
const litmus::Operand* operandOf(const litmus::Instr& in, std::string_view role) {
  const auto sig = ptx::operandSignature(ptx::opInfo(in.op));
  for (size_t k = 0; k < sig.size() && k < in.operands.size(); ++k)
    if (sig[k] == role) return &in.operands[k];
  return nullptr;
}

/// The name of the same test at matching scopes: every ".NARROW" replaced by ".WIDE".
std::string widened(std::string name, ptx::Scope narrow, ptx::Scope wide) {
  const std::string from = std::string(".") + scopeName(narrow), to = std::string(".") + scopeName(wide);
  for (size_t at = 0; (at = name.find(from, at)) != std::string::npos; at += to.size())
    name.replace(at, from.size(), to);
  return name;
}

}  // namespace

std::string coherenceReversal(const litmus::Test& t, const std::string& state) {
  std::map<std::string, int64_t> values;
  for (const auto& [label, value] : outcome::parseStateKey(state)) values[label] = value;
  // One access of a thread to a physical location with a known value: a load whose register the state
  // gives, or a store of a constant.
  struct Access {
    bool load;
    std::string loc;
    int64_t value;
    ptx::Proxy proxy;  // of the instruction (a surface load reads through the surface proxy)
  };
  std::vector<std::vector<Access>> byThread(t.threads.size());
  std::map<std::string, std::map<int64_t, std::pair<size_t, size_t>>> writes;  // loc -> value -> (thread, index)
  std::set<std::pair<std::string, int64_t>> ambiguous;                         // written twice
  for (size_t i = 0; i < t.threads.size(); ++i)
    for (const auto& st : t.threads[i].code) {
      if (!st.instr || st.instr->guard) continue;  // a guarded access may not execute
      const auto& in = *st.instr;
      const ptx::OpFamily f = ptx::opInfo(in.op).family;
      if (f != ptx::OpFamily::Read && f != ptx::OpFamily::Write) continue;
      const litmus::Operand* a = operandOf(in, "a");
      if (!a || a->kind != litmus::Operand::Kind::Addr || !a->baseReg.empty() || a->imm != 0) continue;
      const std::string loc = physical(t, a->loc.name);
      if (f == ptx::OpFamily::Read) {
        const litmus::Operand* d = operandOf(in, "d");
        if (!d || d->kind != litmus::Operand::Kind::Reg) continue;
        auto v = values.find(std::to_string(i) + ":" + d->name);
        if (v != values.end()) byThread[i].push_back({true, loc, v->second, ptx::opInfo(in.op).proxy});
      } else {
        const litmus::Operand* v = operandOf(in, "s");
        if (!v || v->kind != litmus::Operand::Kind::Imm) continue;
        if (!writes[loc].emplace(v->imm, std::pair{i, byThread[i].size()}).second) ambiguous.insert({loc, v->imm});
        byThread[i].push_back({false, loc, v->imm, ptx::opInfo(in.op).proxy});
      }
    }
  auto init = [&](const std::string& loc) {
    for (const auto& d : t.locations)
      if (d.name == loc) return d.init;
    return int64_t{0};
  };
  // Whether value b of `loc` is coherence-before value a, as the test alone fixes it.
  auto before = [&](const std::string& loc, int64_t b, int64_t a) -> std::string {
    if (a == b || ambiguous.count({loc, a}) || ambiguous.count({loc, b})) return "";
    auto& ws = writes[loc];
    auto wa = ws.find(a);
    if (wa == ws.end() || ws.count(init(loc))) return "";  // a is not a store of the test, or init is written
    if (b == init(loc)) return "its initial value";
    auto wb = ws.find(b);
    if (wb != ws.end() && wb->second.first == wa->second.first && wb->second.second < wa->second.second)
      return "stored before " + std::to_string(a) + " by P" + std::to_string(wa->second.first);
    return "";
  };
  for (size_t i = 0; i < byThread.size(); ++i)
    for (size_t k = 0; k < byThread[i].size(); ++k) {
      const Access& later = byThread[i][k];
      if (!later.load) continue;
      for (size_t j = 0; j < k; ++j) {
        const Access& first = byThread[i][j];
        // Across proxies the device does not keep the order (a surface load after a generic store reads stale
        // data on the H100): only accesses through one proxy count.
        if (first.loc != later.loc || first.proxy != later.proxy) continue;
        if (const std::string why = before(later.loc, later.value, first.value); !why.empty())
          return "P" + std::to_string(i) + (first.load ? " reads " : " writes ") + later.loc + "=" +
                 std::to_string(first.value) + ", then reads " + later.loc + "=" + std::to_string(later.value) + " (" +
                 why + ")";
      }
    }
  return "";
}

UnseenState staticReason(const litmus::Test& t, const std::string& state, ptx::Scope& narrow, ptx::Scope& wide) {
  UnseenState u;
  u.state = state;
  const ptx::Scope placement = placementScope(t);
  const std::string mismatch = scopeMismatch(t, narrow, wide);
  const std::string loads = mergedLoads(t, state);
  const std::string reversal = coherenceReversal(t, state);
  if (placement == ptx::Scope::Sys) {
    u.category = kPlacement;
    u.evidence = "threads on different GPUs; the kernel runs them on one GPU";
  } else if (!mismatch.empty()) {
    u.category = kScope;
    u.evidence = "scope " + mismatch;
  } else if (!reversal.empty()) {
    u.category = kCoherence;
    u.evidence = reversal;
  } else if (!loads.empty()) {
    u.category = kMergedLoads;
    u.evidence = loads + " (`ptxmm gen --sass` shows whether both loads survive)";
  } else if (placement == ptx::Scope::Cta && t.threads.size() > 1) {
    // Every thread of the test in one CTA: the kernel runs them on one SM, whose accesses go through
    // one L1; the weak outcomes seen elsewhere need threads on different SMs.
    u.category = kOneCta;
    u.evidence =
        "all " + std::to_string(t.threads.size()) + " threads in CTA " + std::to_string(t.threads.front().where.cta);
  }
  return u;
}

std::string valueNeverSeen(const std::string& state, const std::map<std::string, uint64_t>& seen,
                           const std::set<std::string>& allowed) {
  std::set<std::pair<std::string, int64_t>> shown;
  for (const auto& [k, n] : seen)
    if (n > 0)
      for (const auto& lv : outcome::parseStateKey(k)) shown.insert(lv);
  std::map<std::pair<std::string, int64_t>, int> statesWith;  // value -> allowed states that have it
  for (const auto& a : allowed)
    for (const auto& lv : outcome::parseStateKey(a)) ++statesWith[lv];
  for (const auto& [label, value] : outcome::parseStateKey(state))
    if (shown.count({label, value}) == 0 && statesWith[{label, value}] >= 2) return label + "=" + std::to_string(value);
  return "";
}

/// The threads' placements and the final condition: tests with the same key differ only in their
/// instructions (their synchronisation, their access kinds), so a state one of them shows is one the
/// stress kernel can produce for those threads.
std::string ShapeIndex::key(const litmus::Test& t) {
  std::string key;
  for (const auto& th : t.threads)
    key += std::to_string(th.where.cta) + "," + std::to_string(th.where.cluster) + "," + std::to_string(th.where.gpu) +
           ";";
  return key + litmus::printCondition(t.condition, litmus::PropStyle::Canonical);
}

std::multiset<std::string> ShapeIndex::instructions(const litmus::Test& t) {
  std::multiset<std::string> out;
  for (const auto& th : t.threads)
    for (const auto& st : th.code)
      if (st.instr) out.insert(litmus::printInstr(*st.instr));
  return out;
}

void ShapeIndex::add(const litmus::Test& t, const std::string& name, const std::map<std::string, uint64_t>& seen,
                     uint64_t instances) {
  auto& e = byKey_[key(t)][name];
  e.instances += instances;
  for (const auto& [k, v] : seen) e.seen[k] += v;
  if (e.instrs.empty()) e.instrs = instructions(t);
}

std::string ShapeIndex::seenElsewhere(const litmus::Test& t, const std::string& self, const std::string& state) const {
  auto it = byKey_.find(key(t));
  if (it == byKey_.end()) return "";
  const std::multiset<std::string> mine = instructions(t);
  const std::string* best = nullptr;
  std::pair<size_t, uint64_t> bestKey{0, 0};  // (shared instructions, times seen)
  uint64_t bestInstances = 0;
  for (const auto& [name, e] : it->second) {
    if (name == self) continue;
    auto s = e.seen.find(state);
    if (s == e.seen.end() || s->second == 0) continue;
    std::vector<std::string> common;
    std::set_intersection(mine.begin(), mine.end(), e.instrs.begin(), e.instrs.end(), std::back_inserter(common));
    const std::pair<size_t, uint64_t> k{common.size(), s->second};
    if (best == nullptr || k > bestKey) {
      best = &name;
      bestKey = k;
      bestInstances = e.instances;
    }
  }
  if (best == nullptr) return "";
  return "seen " + std::to_string(bestKey.second) + " times in " + *best + " (" + std::to_string(bestInstances) +
         " instances), whose threads and condition are the same";
}

std::string ShapeIndex::unseenElsewhere(const litmus::Test& t, const std::string& self) const {
  auto it = byKey_.find(key(t));
  if (it == byKey_.end()) return "";
  size_t others = 0;
  uint64_t instances = 0;
  for (const auto& [name, e] : it->second)
    if (name != self && e.instances > 0) {
      ++others;
      instances += e.instances;
    }
  if (others == 0) return "";
  return "nor did the " + std::to_string(others) + " other test(s) of its threads and condition (" +
         std::to_string(instances) + " instances)";
}

UnseenState observedReason(const litmus::Test& t, const std::string& name, const std::string& state,
                           const std::map<std::string, uint64_t>& seen, const std::set<std::string>& allowed,
                           const ShapeIndex& shapes, ptx::Scope& narrow, ptx::Scope& wide) {
  if (const std::string v = seen.empty() ? "" : valueNeverSeen(state, seen, allowed); !v.empty())
    return {state, kValueNeverSeen, "no instance had " + v};
  UnseenState u = staticReason(t, state, narrow, wide);
  // A test of the same threads that shows the state is evidence; what the test alone suggests (its scopes, its
  // loads, one SM) is not. Only a placement one device cannot realise stays.
  if (u.category != kPlacement)
    if (std::string sib = shapes.seenElsewhere(t, name, state); !sib.empty()) return {state, kSiblingSeen, sib};
  return u;
}

SuiteCoverage coverage(Store& store) {
  SuiteCoverage suite;
  const auto tests = store.tests("test");
  const auto mutants = store.tests("mutant");
  std::map<int64_t, std::vector<RunRow>> runsOf;
  for (auto& r : store.runs("campaign")) runsOf[r.test].push_back(std::move(r));
  std::map<int64_t, bool> killed;
  for (const auto& r : store.runs("tune"))
    if (r.targetSeen > 0) killed[r.test] = true;
  const std::set<int64_t> notRunnable = notRunnableMutants(store);  // not killable here
  for (const auto& t : tests) {
    TestCoverage c;
    c.id = t.id;
    c.name = t.name;
    c.file = t.file;
    c.arch = t.arch;
    c.hasModel = t.allowed.has_value();
    if (t.allowed) c.allowed = *t.allowed;
    if (t.hanging) c.hanging = *t.hanging;
    auto pr = litmus::tryParseTest(t.text, t.file);
    c.status = "pending";
    std::string device;
    for (const auto& r : runsOf[t.id]) {
      if (!isFinished(r.status)) continue;
      if (c.status != "ok") {
        c.status = r.status;
        c.reason = r.reason;
      }
      if (r.status != "ok") continue;
      if (r.device.is_object()) device = r.device.value("name", "") + " (sm_" + r.device.value("sm", "") + ")";
      c.instances += r.instances;
      c.timedOut += r.timedOut;
      c.seconds += r.seconds;
      for (const auto& [k, v] : r.states) {
        c.seen[k] += v;
        if (pr.ok() && report::satisfies(*pr.test, k)) c.weak += v;
      }
    }
    for (const auto& m : mutants)
      if (m.parent == t.id && notRunnable.count(m.id) == 0) {
        ++c.mutants;
        if (killed[m.id]) ++c.mutantsKilled;
      }
    if (c.hasModel)
      for (const auto& [k, v] : c.seen)
        if (!c.allowed.count(k)) c.forbiddenSeen[k] = v;
    suite.tests.push_back(std::move(c));
  }
  // Reasons, with the whole suite's observations at hand.
  std::map<std::string, const TestCoverage*> byName;
  for (const auto& c : suite.tests) byName[c.name] = &c;
  ShapeIndex shapes;
  for (size_t i = 0; i < suite.tests.size(); ++i)
    if (auto pr = litmus::tryParseTest(tests[i].text, tests[i].file); pr.ok())
      shapes.add(*pr.test, suite.tests[i].name, suite.tests[i].seen, suite.tests[i].instances);
  // Coherence reversals (coherenceReversal) the model allows, and any the device showed: kCoherence stands
  // only while no test of the store showed one.
  size_t reversalsAllowed = 0;
  std::set<std::string> reversalTests;
  uint64_t reversalInstances = 0;
  std::string reversalSeen;
  for (size_t i = 0; i < suite.tests.size(); ++i) {
    auto pr = litmus::tryParseTest(tests[i].text, tests[i].file);
    if (!pr.ok() || suite.tests[i].status != "ok" || suite.tests[i].instances == 0) continue;
    for (const auto& state : suite.tests[i].allowed) {
      if (coherenceReversal(*pr.test, state).empty()) continue;
      ++reversalsAllowed;
      if (reversalTests.insert(suite.tests[i].name).second) reversalInstances += suite.tests[i].instances;
      auto s = suite.tests[i].seen.find(state);
      if (s != suite.tests[i].seen.end() && s->second > 0 && reversalSeen.empty())
        reversalSeen = suite.tests[i].name + " showed " + state + " " + std::to_string(s->second) + " times";
    }
  }
  for (size_t i = 0; i < suite.tests.size(); ++i) {
    auto& c = suite.tests[i];
    auto pr = litmus::tryParseTest(tests[i].text, tests[i].file);
    for (const auto& state : c.allowed) {
      if (c.seen.count(state)) continue;
      UnseenState u;
      u.state = state;
      if (c.status != "ok") {
        const bool arch =
            c.reason.find("needs sm_100a") != std::string::npos || (c.arch == "sm_100a" && c.status == "skipped");
        u.category = arch ? kNeedsArch : kNotRun;
        u.evidence = c.status + ": " + c.reason;
      } else if (c.instances > 0 && c.timedOut >= c.instances) {
        // No instance reached the end of its threads, so no final state was recorded at all: the model's
        // states of such a test are those of executions that hang (a wait never satisfied, a spin forever).
        u.category = kNoneFinished;
        u.evidence = "all " + std::to_string(c.instances) + " instances hit the spin bound";
      } else if (c.hanging.count(state) > 0 && c.timedOut > 0) {
        // The model reaches the state by an execution that hangs, and the device ran into such executions: their
        // instances spin to the bound and end without a final state, so the state cannot be recorded that way.
        u.category = kHangs;
        u.evidence = "the model reaches it by an execution that deadlocks or livelocks; " + std::to_string(c.timedOut) +
                     " of " + std::to_string(c.instances) + " instances hit the spin bound";
      } else {
        ptx::Scope narrow{}, wide{};
        if (pr.ok()) {
          const UnseenState r = observedReason(*pr.test, c.name, state, c.seen, c.allowed, shapes, narrow, wide);
          u.category = r.category;
          u.evidence = r.evidence;
        }
        if (u.category == kCoherence) {
          if (reversalSeen.empty()) {
            u.evidence += "; not here in " + std::to_string(c.instances) + " instances, nor in any of the " +
                          std::to_string(reversalsAllowed) + " such states the model allows in the " +
                          std::to_string(reversalTests.size()) + " tests of the store that ran (" +
                          std::to_string(reversalInstances) + " instances)";
          } else {
            u.category = kUnexplained;
            u.evidence += ", although " + reversalSeen + "; " + std::to_string(c.instances) + " instances";
          }
        } else if (u.category == kSiblingSeen) {
          u.evidence += "; not here in " + std::to_string(c.instances) + " instances";
        } else if (u.category == kScope) {
          auto it = byName.find(widened(c.name, narrow, wide));
          if (it != byName.end() && it->second != &c) {
            auto s = it->second->seen.find(state);
            u.evidence += s != it->second->seen.end() && s->second > 0
                              ? "; same shape at matching scopes seen: " + it->second->name + " (" +
                                    std::to_string(s->second) + " times)"
                              : "; same shape at matching scopes (" + it->second->name + ") did not see it either";
          }
        } else if (!u.category.empty()) {
          u.evidence += " (" + std::to_string(c.instances) + " instances)";
        } else if (c.allowed.size() > 16) {
          u.category = kManyStates;
          u.evidence = std::to_string(c.allowed.size()) + " allowed states, " + std::to_string(c.seen.size()) +
                       " seen in " + std::to_string(c.instances) + " instances";
        } else {
          u.category = kUnexplained;
          u.evidence = std::to_string(c.instances) + " instances";
        }
        // What the other tests of the shape did not show either (no sibling showed it: a sibling that did is the
        // reason above).
        if (pr.ok() && (u.category == kOneCta || u.category == kUnexplained))
          if (std::string none = shapes.unseenElsewhere(*pr.test, c.name); !none.empty()) u.evidence += "; " + none;
      }
      c.unseen.push_back(u);
    }
    suite.allowed += c.allowed.size();
    suite.allowedSeen += c.allowedSeen();
    suite.forbiddenSeen += c.forbiddenSeen.size();
    suite.mutants += c.mutants;
    suite.mutantsKilled += c.mutantsKilled;
    for (const auto& u : c.unseen) ++suite.categories[u.category];
    if (!c.hasModel) ++suite.categories[kNoModel];
  }
  return suite;
}

void printCoverage(const SuiteCoverage& c, std::ostream& os, bool perState) {
  auto pct = [](size_t a, size_t b) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << (b == 0 ? 0.0 : 100.0 * static_cast<double>(a) / static_cast<double>(b))
      << "%";
    return s.str();
  };
  for (const auto& t : c.tests) {
    os << t.name << ": " << t.status;
    if (t.hasModel)
      os << ", allowed states seen " << t.allowedSeen() << "/" << t.allowed.size();
    else
      os << ", no model states";
    if (t.mutants > 0) os << ", mutants killed " << t.mutantsKilled << "/" << t.mutants;
    os << ", " << t.instances << " instances";
    if (t.status != "ok" && !t.reason.empty()) os << " (" << t.reason << ")";
    os << "\n";
    for (const auto& [k, v] : t.forbiddenSeen) os << "  !!! FORBIDDEN & SEEN !!! " << v << "  " << k << "\n";
    if (perState)
      for (const auto& u : t.unseen)
        os << "  never seen  " << u.state << "  [" << u.category << "] " << u.evidence << "\n";
  }
  os << "Suite: " << c.tests.size() << " tests, allowed-state coverage " << c.allowedSeen << "/" << c.allowed << " ("
     << pct(c.allowedSeen, c.allowed) << "), mutants killed " << c.mutantsKilled << "/" << c.mutants
     << ", forbidden-and-seen " << c.forbiddenSeen << "\n";
  for (const auto& [cat, n] : c.categories) os << "  unseen: " << n << "  " << cat << "\n";
  if (c.forbiddenSeen > 0)
    os << "!!! " << c.forbiddenSeen << " state(s) FORBIDDEN by the model were SEEN on hardware !!!\n";
}

}  // namespace ptxmm::campaign
