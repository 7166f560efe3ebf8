// Minimum SM target and PTX ISA version an instruction or a whole test needs, from the operations
// table (base form) refined by qualifiers (the PTX ISA notes and target ISA notes of each instruction). Used by the
// kernel generator (which .target/.version to emit, which GPUs can run a test) and by the checker (skips).
#pragma once

#include "litmus/Ast.hpp"
#include "ptx/Attributes.hpp"

namespace ptxmm::litmus {

/// Least target that assembles the canonical spelling of `in` (e.g. multicast try_cancel → sm_100a).
[[nodiscard]] ptx::Target requiredTarget(const Instr& in);

/// Least target of every instruction of the test, and of its thread layout (a cluster of several
/// CTAs needs sm_90; a `.clc_pending` queue needs sm_100).
[[nodiscard]] ptx::Target requiredTarget(const Test& t);

}  // namespace ptxmm::litmus
