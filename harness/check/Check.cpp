// checkTest: lowering, engine dispatch, cross-engine comparison.
#include "check/Check.hpp"

#include <fmt/format.h>
#include <z3++.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include "enum/Engine.hpp"
#include "events/Lower.hpp"
#include "litmus/Printer.hpp"
#include "outcome/State.hpp"
#include "smt/Engine.hpp"
#include "support/Budget.hpp"

namespace ptxmm::check {

std::optional<Engine> parseEngine(const std::string& s) {
  if (s == "enum") return Engine::Enum;
  if (s == "smt") return Engine::Smt;
  if (s == "both") return Engine::Both;
  return std::nullopt;
}

std::string toString(Engine e) {
  switch (e) {
    case Engine::Enum: return "enum";
    case Engine::Smt: return "smt";
    case Engine::Both: return "both";
  }
  return "?";
}

std::string compareResults(const Verdict& a, const Verdict& b) {
  // a = enum, b = smt; states are sorted by key.
  size_t i = 0, j = 0;
  while (i < a.states.size() || j < b.states.size()) {
    if (j == b.states.size() || (i < a.states.size() && a.states[i].key < b.states[j].key))
      return fmt::format("state '{}' is allowed by enum but not by smt", a.states[i].key);
    if (i == a.states.size() || b.states[j].key < a.states[i].key)
      return fmt::format("state '{}' is allowed by smt but not by enum", b.states[j].key);
    const auto& sa = a.states[i];
    const auto& sb = b.states[j];
    if (sa.flags != sb.flags) {
      auto join = [](const std::set<std::string>& s) {
        std::string r;
        for (const auto& x : s) r += (r.empty() ? "" : ",") + x;
        return r.empty() ? std::string("none") : r;
      };
      return fmt::format("state '{}': flags differ (enum: {}; smt: {})", sa.key, join(sa.flags), join(sb.flags));
    }
    ++i, ++j;
  }
  if (a.ok != b.ok) return fmt::format("Ok/No differ (enum: {}, smt: {})", a.ok ? "Ok" : "No", b.ok ? "Ok" : "No");
  return "";
}

namespace {

// The fields naming what was checked, for every verdict checkTest returns.
void identify(Verdict& v, const litmus::Test& test, const std::string& modelName, Engine engine) {
  v.testName = test.name;
  v.file = test.file;
  v.model = modelName;
  v.engine = toString(engine);
  try {
    v.hash = litmus::testHash(test);
  } catch (const std::exception&) {
    v.hash = "";
  }
}

// An undecided verdict's own fields (identify adds the rest).
Verdict undecided(const litmus::Test& test, Status status, const std::string& message) {
  Verdict v;
  v.quant = test.condition.quant;
  v.condition = litmus::printCondition(test.condition, litmus::PropStyle::Herd);
  v.status = status;
  v.message = message;
  finalizeVerdict(v);
  return v;
}

}  // namespace

Verdict undecidedVerdict(const litmus::Test& test, const std::string& modelName, Engine engine, Status status,
                         const std::string& message) {
  Verdict v = undecided(test, status, message);
  identify(v, test, modelName, engine);
  return v;
}

Verdict checkTest(const litmus::Test& test, const cat::Model& model, const std::string& modelName,
                  const CheckOptions& options, smt::Workspace* ws) {
  auto t0 = std::chrono::steady_clock::now();
  Verdict v;
  auto fail = [&](Status st, const std::string& msg, bool internal = false) {
    Verdict e = undecided(test, st, msg);
    e.internalError = internal;
    return e;
  };
  // One budget for every phase of the test; a caller that also parsed the test (the suite) has installed
  // it already, and its clock started before the parse.
  std::optional<Budget> own;
  std::optional<BudgetScope> scope;
  if (currentBudget() == nullptr) {
    own.emplace(options.timeoutMs / 1000.0, options.memoryBytes);
    scope.emplace(*own);
  }
  Budget& budget = *currentBudget();
  try {
    events::LowerOptions lo;
    lo.unroll = options.unroll;
    lo.maxEvents = options.maxEvents;
    events::EventProgram program = events::lower(test, lo);
    if (options.maxEvents > 0 && program.events.size() > static_cast<size_t>(options.maxEvents)) {
      v = fail(Status::Unknown, fmt::format("{}: refused: {} events exceed the size limit --max-events {}", test.file,
                                            program.events.size(), options.maxEvents));
    } else {
      const outcome::StateSpec spec =
          outcome::makeStateSpec(test, [&](const litmus::LocRef& ref) { return events::findLocation(program, ref); });
      auto runE = [&] {
        enumeration::EnumOptions eo;
        eo.witnesses = options.witnesses;
        eo.maxStates = options.maxStates;
        eo.countExecutions = options.countExecutions;
        eo.threads = options.enumThreads;
        // The test's deadline is polled through the installed budget; in both mode the enum engine also
        // has a budget of its own after which smt decides alone: at most half of what is left of the test's
        // time, so that smt always has the other half.
        if (options.engine == Engine::Both) {
          eo.timeoutSeconds = options.enumBudgetMs / 1000.0;
          if (options.timeoutMs > 0) {
            double half = std::max(0.001, budget.remaining() / 2);
            eo.timeoutSeconds = eo.timeoutSeconds > 0 ? std::min(eo.timeoutSeconds, half) : half;
          }
        }
        return makeVerdict(test, enumeration::runEnum(program, model, spec, eo));
      };
      auto runS = [&] {
        smt::SmtOptions so;
        if (options.timeoutMs > 0) {  // what is left of the test's budget, at least 1 ms
          double left = budget.remaining();
          if (left <= 0)
            throw BudgetExceeded(
                BudgetExceeded::Time,
                fmt::format("the test's time budget of {} ms was spent before the smt engine", options.timeoutMs));
          so.timeoutMs = std::max(1u, static_cast<unsigned>(left * 1000));
        }
        so.maxStates = options.maxStates;
        so.witnesses = options.witnesses;
        so.countExecutions = options.countExecutions && options.engine == Engine::Smt;
        std::unique_ptr<smt::Workspace> own;
        if (!ws) own = std::make_unique<smt::Workspace>();
        if (ws) so.releaseLater = options.releaseLater;  // never with a workspace freed here
        EngineResult r = smt::runSmt(ws ? *ws : *own, program, model, spec, so);
        if (options.smtResultHook) options.smtResultHook(r);
        return makeVerdict(test, std::move(r));
      };
      switch (options.engine) {
        case Engine::Enum: v = runE(); break;
        case Engine::Smt: v = runS(); break;
        case Engine::Both: {
          Verdict ve = runE();
          Verdict vs = runS();
          if (ve.status != Status::Ok && ve.status != Status::Error) {
            // The enum engine gave up (its budget, a limit): smt decides alone, or says why it cannot.
            v = std::move(vs);
            if (v.status == Status::Ok) v.note = "not cross-checked: enum engine gave up (" + ve.message + ")";
          } else if (ve.status != Status::Ok) {
            v = std::move(ve);
          } else if (vs.status != Status::Ok) {
            v = std::move(vs);
          } else if (std::string d = compareResults(ve, vs); !d.empty()) {
            v = std::move(ve);
            v.status = Status::Error;
            v.internalError = true;
            v.message = fmt::format("internal error: engines disagree on test {} ({}): {}", test.name, test.file, d);
          } else {
            v = std::move(ve);  // its execution counts when counted
            v.forbiddenBy = vs.forbiddenBy;
          }
          break;
        }
      }
      if (v.status == Status::Error && v.message.find(test.file) == std::string::npos)
        v.message = fmt::format("{}: error: {}", test.file, v.message);
    }
  } catch (const events::SizeLimit& e) {
    v = fail(Status::Unknown, fmt::format("{}: refused: {}", test.file, e.what()));
  } catch (const BudgetExceeded& e) {
    v = fail(outcome::budgetStatus(e), fmt::format("{}: {}", test.file, e.what()));
  } catch (const DiagnosticError& e) {
    v = fail(Status::Error, e.what());
  } catch (const z3::exception& e) {
    v = fail(Status::Error, fmt::format("{}: internal error: z3: {}", test.file, e.msg()), true);
  } catch (const std::exception& e) {
    v = fail(Status::Error, fmt::format("{}: internal error: {}", test.file, e.what()), true);
  }
  identify(v, test, modelName, options.engine);
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return v;
}

}  // namespace ptxmm::check
