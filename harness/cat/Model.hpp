// Loading cat models: parsing, include resolution (with a cache of parsed files) and the implicit
// `stdlib.cat` prelude, as herd7 does.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <set>
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

/// Directories holding the shipped models, searched in order: the source tree's `models/` when the
/// running binary sits in a build tree (a CMakeCache.txt in its directory or a parent), then
/// `<binary dir>/../share/ptxmm/models` (an installed, relocatable tree), then the configured
/// install directory. Only existing directories are returned.
[[nodiscard]] std::vector<std::filesystem::path> modelSearchDirs();

/// The library directory (stdlib.cat and the shipped models; last include search directory): the
/// first of modelSearchDirs(), else the source tree's `models/`.
[[nodiscard]] std::filesystem::path libraryDir();

/// The model file that `--model ARG` names: ARG itself if it is a file; else a shipped model of that
/// name (`ptx`, `ptx-cta-proxy-fence`, `ptx.cat`, or the file name of a relative path such as
/// `models/ptx.cat`) in modelSearchDirs(). Throws DiagnosticError naming where it looked and the
/// shipped models when there is none (the one wording of every subcommand).
[[nodiscard]] std::filesystem::path findModel(const std::string& arg);

/// Parses and resolves the model file `path` (includes searched in: the including file's
/// directory, opts.includeDirs, libraryDir()); `stdlib.cat` and `cos.cat` are always the library
/// directory's, `filters.cat` and `cross.cat` ptxmm's built-in versions (cat/HerdLib.hpp). Throws DiagnosticError
/// (file:line:col) on bad input, missing files and include cycles. Parsed files are cached per process by canonical
/// path.
[[nodiscard]] Model loadModel(const std::filesystem::path& path, const LoadOptions& opts = {});

/// Parses model text (`file` is used for locations and as the base for relative includes).
[[nodiscard]] Model parseModel(std::string_view text, const std::string& file = "<model>",
                               const LoadOptions& opts = {});

/// The entries of herd7's environment bound to the empty set / relation (cat/HerdLib.hpp: no PTX
/// counterpart) that the model uses, sorted. loadModel reports them once per model file through the note
/// sink.
[[nodiscard]] std::vector<std::string> boundEmptyNames(const Model& model);

/// Where loadModel's notes go (default: "ptxmm: note: ..." lines on standard error); thread-safe.
void setNoteSink(std::function<void(const std::string&)> sink);

/// Names of the flags the model can raise (`flag ... as NAME`, in the prelude, the model and every file they
/// include, at any depth of procedures and conditionals).
[[nodiscard]] std::set<std::string> flagNames(const Model& model);

}  // namespace ptxmm::cat
