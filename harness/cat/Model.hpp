// Loading cat models: parsing, include resolution (with a cache of parsed files) and the implicit
// `stdlib.cat` prelude, as herd7 does.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cat/Ast.hpp"

namespace ptxmm::cat {

/// A loaded model: the main file with every `include` resolved (Instr::included), plus the prelude.
struct Model {
  std::shared_ptr<const ModelFile> prelude;  ///< models/stdlib.cat (null if disabled or not found)
  std::shared_ptr<const ModelFile> main;     ///< the model itself
  /// Header title of the main file ("" if none).
  [[nodiscard]] const std::string& title() const { return main->title; }
};

/// Options of the model loader.
struct LoadOptions {
  std::vector<std::filesystem::path> includeDirs;  ///< searched after the including file's directory
  bool prelude = true;                             ///< auto-include stdlib.cat first
};

/// The ptxmm library directory `models/` of the source tree (last include search directory).
[[nodiscard]] std::filesystem::path libraryDir();

/// Parses and resolves the model file `path` (includes searched in: the including file's
/// directory, opts.includeDirs, libraryDir()). Throws DiagnosticError (file:line:col) on bad input,
/// missing files and include cycles. Parsed files are cached per process by canonical path.
[[nodiscard]] Model loadModel(const std::filesystem::path& path, const LoadOptions& opts = {});

/// Parses model text (`file` is used for locations and as the base for relative includes).
[[nodiscard]] Model parseModel(std::string_view text, const std::string& file = "<model>",
                               const LoadOptions& opts = {});

}  // namespace ptxmm::cat
