// Event lowering: litmus::Test -> EventProgram (all control-flow paths of every thread, asynchronous
// operations as pseudo-threads, static relations). Encodings: docs/design.md and docs/lowering.md.
#pragma once

#include <optional>
#include <stdexcept>
#include <utility>

#include "events/EventProgram.hpp"
#include "litmus/Ast.hpp"

namespace ptxmm::events {

/// Options of the lowering.
struct LowerOptions {
  int unroll = 2;         ///< times a backward branch may be taken on one path; one more ends the path (Cut)
  int maxPaths = 20000;   ///< per thread; more is reported as an error rather than exhausting memory
  int maxSteps = 100000;  ///< instructions executed on one path
  int maxEvents = 0;  ///< more events than this (all paths together) → SizeLimit as soon as one more is made; 0 = none
};

/// Thrown by lower() when the program grows past LowerOptions::maxEvents: the test is refused before the
/// work of exploring the rest of its paths is done.
class SizeLimit : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Lower a parsed test. The returned program keeps a pointer to `test` (it must outlive the program).
/// Throws DiagnosticError (with the instruction's source location) for unsupported or invalid input.
[[nodiscard]] EventProgram lower(const litmus::Test& test, const LowerOptions& options = {});

/// Physical location id named by a final-condition / `locations` term (`x`, `s@cta1`, the only copy of an
/// owner-only shared variable); std::nullopt if it names none (an ambiguous per-CTA name without `@ctaN`
/// also gives std::nullopt).
[[nodiscard]] std::optional<int> findLocation(const EventProgram& program, const litmus::LocRef& ref);

/// The statement (thread index, statement index) of `test` whose instruction is at `src` (file, line and
/// column: the column layout puts several threads' instructions on one line), or nullopt.
[[nodiscard]] std::optional<std::pair<int, size_t>> instructionAt(const litmus::Test& test, const SourceLoc& src);

}  // namespace ptxmm::events
