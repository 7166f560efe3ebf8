// Graphviz rendering of witness executions, readable on one screen: threads as columns of instruction
// boxes in program order, async operations beside their issuing instruction, the edges that explain the
// state (reduced rf/co/fr, synchronisation, the racing pair) and a legend.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "check/Verdict.hpp"

namespace ptxmm::check {

/// An instruction a picture marks in a thread's column at its line (e.g. the one `ptxmm fences` removed).
struct DotMark {
  int thread = -1;   ///< litmus thread
  int line = 0;      ///< source line: the mark goes before the first box of a later line
  std::string text;  ///< "removed: fence.proxy.async.shared::cta (l.12)"
};

/// Options of writeDot.
struct DotOptions {
  std::vector<DotMark> marks;
};

/// Writes one witness as a dot graph that fits a screen: the litmus threads as columns, one box per
/// instruction instance in program order with its events in PTX terms (`l.16 ld.shared.u32 r0, [buf]` /
/// `R buf = 2`); each asynchronous operation as one dashed box beside the instruction that issued it;
/// only the edges that tell the story — rf, co and fr between data accesses with transitive edges reduced,
/// rf on barrier words as "sync", the pairs a raised flag names (the racing pair) in crimson — and a
/// legend. Initial writes are not drawn (a read of one says `= init value`).
void writeDot(const Verdict& v, const StateResult& state, std::ostream& os, const DotOptions& options = {});

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
