// Checking one litmus test against one model with the enum engine, the smt engine or both (both:
// any difference in states, Ok/No or flags is an internal error naming the test and the first
// differing state).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "cat/Model.hpp"
#include "check/Verdict.hpp"
#include "litmus/Ast.hpp"

namespace ptxmm::smt {
class Workspace;
}

namespace ptxmm::check {

/// Which engine(s) to run.
enum class Engine { Enum, Smt, Both };

/// Parses "enum" / "smt" / "both".
[[nodiscard]] std::optional<Engine> parseEngine(const std::string& s);

/// Name of an engine.
[[nodiscard]] std::string toString(Engine e);

/// Options of checkTest.
struct CheckOptions {
  Engine engine = Engine::Smt;
  int unroll = 2;            ///< loop unrolling bound of the lowering
  unsigned timeoutMs = 0;    ///< time budget of the whole test, every phase and engine (ms); 0 = none
  uint64_t memoryBytes = 0;  ///< memory budget of the test (bytes counted by support/Budget); 0 = none
  int maxEvents = 1000;      ///< lowered programs with more events are refused (Status::Unknown)
  size_t maxStates = 4096;   ///< either engine: more distinct final states → Status::Unknown
  bool witnesses = true;     ///< keep one witness per state
  /// Both mode: budget of the enum engine (ms, 0 = the test's timeout or none). When it is spent the
  /// smt verdict is used and marked "not cross-checked" (Verdict::note).
  unsigned enumBudgetMs = 20000;
  /// Threads of the enum engine (EnumOptions::threads): the suite gives a test the workers it has no other
  /// test for (a single test: all of them).
  int enumThreads = 1;
  /// Count every allowed execution of each state, as herd7 does (slower; in both mode the enum engine
  /// counts); else each state counts 1 (Verdict::countsAreExecutions false).
  bool countExecutions = false;
  /// Test hook: called on the smt result before comparison (to inject engine disagreements).
  std::function<void(EngineResult&)> smtResultHook;
  /// With a caller's workspace: the smt engine's solver and encoding are moved here instead of being freed
  /// before checkTest returns (smt::SmtOptions::releaseLater), for the caller to free once it has reported
  /// the verdict, on the same thread and before the workspace.
  std::shared_ptr<void>* releaseLater = nullptr;
};

/// The verdict of a test that was not decided (`status` is not Ok): the test's name, file, condition,
/// model and engine, and `message`.
[[nodiscard]] Verdict undecidedVerdict(const litmus::Test& test, const std::string& modelName, Engine engine,
                                       Status status, const std::string& message);

/// Checks `test` against `model` (named `modelName`, e.g. "ptx"). Never throws for bad input: parse
/// and lowering errors give Status::Error, a spent time budget Status::Timeout, size caps and refused
/// input Status::Unknown, each with a message naming the file; an engine disagreement gives
/// Status::Error with internalError set.
/// `ws` is the caller's smt workspace (one per thread); null → a temporary one.
[[nodiscard]] Verdict checkTest(const litmus::Test& test, const cat::Model& model, const std::string& modelName,
                                const CheckOptions& options, smt::Workspace* ws = nullptr);

/// First difference between two engine results on one test ("" if they agree on states, Ok/No and
/// flags); the message names the first differing state.
[[nodiscard]] std::string compareResults(const Verdict& enumV, const Verdict& smtV);

}  // namespace ptxmm::check
