// ptxas / cuobjdump front ends: assemble a generated module without a GPU, and show its SASS.
#pragma once

#include <optional>
#include <string>

namespace ptxmm::ptxgen {

/// Result of running ptxas on a module.
struct AssembleResult {
  bool ok = false;           ///< ptxas exited with status 0
  bool toolMissing = false;  ///< ptxas was not found (nothing was run)
  std::string cubinPath;     ///< the cubin written (empty unless `keepCubin`)
  std::string diagnostics;   ///< ptxas's stdout then stderr (errors and warnings), or why it could not
                             ///< start, was killed or timed out (after 300 s)
  std::string command;       ///< the command that was run, quoted for display (it runs without a shell)
};

/// Locate a CUDA tool: $PATH, then $CUDA_HOME/bin, then /usr/local/cuda/bin. nullopt if absent.
[[nodiscard]] std::optional<std::string> findCudaTool(const std::string& name);

/// Assemble `ptxText` with `ptxas -arch=<arch>` into a temporary cubin. With `keepCubin` the cubin is
/// kept at `cubinPath` (chosen if empty) for the caller; otherwise it is removed.
[[nodiscard]] AssembleResult assemble(const std::string& ptxText, const std::string& arch, bool keepCubin = false,
                                      const std::string& cubinPath = "");

/// Disassemble a cubin (`cuobjdump -sass`, else `nvdisasm`). Returns the listing (the tool's stdout),
/// or nullopt with `error` set when neither tool is available or the tool fails (its stderr included)
/// or runs past 300 s.
[[nodiscard]] std::optional<std::string> disassemble(const std::string& cubinPath, std::string& error);

/// `ptxas --version` output's last line ("Cuda compilation tools, release 13.0, V13.0.88"), or "".
[[nodiscard]] std::string ptxasVersion();

}  // namespace ptxmm::ptxgen
