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
/// created or a .dot file cannot be written, and, after writing every file it can, if `dot` failed or
/// timed out on one (the message names dot and carries its stderr; the .dot files stay).
int writeDotFiles(const Verdict& v, const std::filesystem::path& dir, bool svg = true);

/// Renders `dotFile` as `svgFile` with Graphviz (`dot -Tsvg`, no shell, killed after 30 s). Returns
/// true if the SVG was written. False with `error` empty when dot is not installed (callers keep the
/// .dot file, quietly); false with `error` set ("dot exited with status 1: <its stderr> (rendering
/// F)", "dot timed out after 30 s (rendering F)") when it failed; no partial SVG is left behind.
bool renderSvg(const std::filesystem::path& dotFile, const std::filesystem::path& svgFile, std::string& error);

}  // namespace ptxmm::check
