// Graphviz rendering of witness executions: threads as clusters (columns), events in program order,
// edges for po, rf, co, fr, sc, issue/aso/async-complete and the relations the model shows; proxy
// fences highlighted.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

#include "check/Verdict.hpp"

namespace ptxmm::check {

/// Writes one witness as a dot graph titled "test: state".
void writeDot(const Verdict& v, const StateResult& state, std::ostream& os);

/// Writes DIR/<test>-<k>.dot for every state with a witness (and .svg when `dot` is installed and
/// `svg` is set). Returns the number of files written; throws std::runtime_error if DIR cannot be
/// created.
int writeDotFiles(const Verdict& v, const std::filesystem::path& dir, bool svg = true);

}  // namespace ptxmm::check
