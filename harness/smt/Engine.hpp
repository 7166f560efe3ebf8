// The Z3 engine: one encoding per test covering every path choice at once (a selector variable per
// path of each thread; the events of the unselected paths do not execute), rf / co / sc as Boolean
// variables, values as bit-vectors (64 bits, or narrower where exact: smt/ValueLayout.hpp), the cat model evaluated
// once with the symbolic algebra (SymAlgebra with a Frame), every named axiom a tracked assertion. All reachable final
// states are found by incremental solving with blocking clauses over the final-state terms; flags are decided per
// state; unsat cores name the axioms that forbid the condition's outcome.
#pragma once

#include <z3++.h>

#include <cstdint>
#include <memory>

#include "cat/Model.hpp"
#include "events/EventProgram.hpp"
#include "outcome/Result.hpp"
#include "outcome/State.hpp"

namespace ptxmm::smt {

/// Options of the smt engine.
struct SmtOptions {
  unsigned timeoutMs = 0;        ///< budget for the whole test (all queries); 0 = none. Exceeded → Status::Timeout
  bool witnesses = true;         ///< extract one witness per state
  bool countExecutions = false;  ///< count allowed executions per state (slow); else 1 per state
  bool explain = true;           ///< unsat core of the condition's outcome when it is unreachable
  size_t maxStates = 4096;       ///< more distinct states → Status::Unknown
  bool narrowValues = true;      ///< values in the narrowest exact widths (smt/ValueLayout.hpp); false: 64 bits
  /// Non-null: the solver and the encoding are moved here instead of being freed before runSmt returns,
  /// so that the caller can report the result first (freeing a large encoding takes Z3 a good part of a
  /// second). The caller frees it on the thread that ran runSmt, before the workspace, and before that
  /// thread's next use of the workspace (else that test gets a solver of its own).
  std::shared_ptr<void>* releaseLater = nullptr;
};

/// Bounds the memory of Z3, all its contexts in this process together (Z3 counts its allocations for the
/// whole process; they are outside support/Budget's count). A check that finds Z3 over it is stopped with
/// Status::MemoryLimit. 0 = no limit (the default). Z3's own `memory_max_size` is not used: Z3 4.8.12
/// crashes when it reaches it (a null context, an internal assertion).
void limitSolverMemory(uint64_t bytes);

/// Sets the random seed of Z3's SMT core (`smt.random_seed`, 0 by default) for the solvers created after
/// the call, in every context of this process: call it before any check. Verdicts, states and flags do not
/// depend on it; a witness execution, an unsat core and the time may (the benchmark's growth fits take the
/// median over seeds, bench/scaling.py).
void setRandomSeed(unsigned seed);

/// What a z3 context holds before it is given anything (17 MiB measured with Z3 4.8.12), rounded up: the
/// callers of limitSolverMemory add it per worker to the tests' own limit.
inline constexpr uint64_t kSolverContextBytes = uint64_t{32} << 20;

/// A z3 context and the solver that its small tests take turns on, one test at a time: such a test's encoding
/// is added in a scope of its own (push) and removed with it (pop). Making a solver and setting up its theories
/// costs as much as checking a small test; a solver with a scope pushed searches more slowly, so a large
/// encoding gets a solver of its own (docs/performance.md "A solver per worker").
class Workspace {
 public:
  Workspace() = default;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  [[nodiscard]] z3::context& ctx() { return ctx_; }
  /// The solver for a test. For a small encoding (`small`) the shared one, with a scope of its own pushed and
  /// no timeout (`scoped` set), unless an earlier test still holds it (its encoding not yet freed:
  /// SmtOptions::releaseLater); else a new one.
  [[nodiscard]] std::shared_ptr<z3::solver> takeSolver(bool small, bool& scoped);
  /// After a test that was interrupted or met a z3 error: the next test gets a new solver.
  void dropSolver() { solver_.reset(); }

 private:
  z3::context ctx_;  // declared first: freed after the solver
  std::shared_ptr<z3::solver> solver_;
};

/// Runs the smt engine in `ws` (one workspace per thread). Never throws: z3 exceptions and model
/// errors become Status::Error / Unknown with a message.
[[nodiscard]] outcome::EngineResult runSmt(Workspace& ws, const events::EventProgram& program, const cat::Model& model,
                                           const outcome::StateSpec& spec, const SmtOptions& options = {});

}  // namespace ptxmm::smt
