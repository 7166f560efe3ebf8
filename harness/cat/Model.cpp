#include "cat/Model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include "cat/Compiled.hpp"
#include "cat/HerdLib.hpp"
#include "cat/Parser.hpp"

namespace ptxmm::cat {

namespace fs = std::filesystem;

namespace {

struct Loader {
  const LoadOptions& opts;
  std::vector<std::string> stack;  // canonical paths being loaded (cycle detection)

  static std::mutex& cacheMutex() {
    static std::mutex m;
    return m;
  }
  static std::map<std::string, std::shared_ptr<const ModelFile>>& cache() {
    static std::map<std::string, std::shared_ptr<const ModelFile>> c;
    return c;
  }

  std::string cacheKey(const std::string& canon) const {
    std::string k = canon;
    for (const auto& d : opts.includeDirs) k += "\n" + d.string();
    return k;
  }

  std::optional<fs::path> find(const std::string& name, const fs::path& baseDir) const {
    // herd's prelude and coherence-order files are ptxmm's own (models/stdlib.cat, models/cos.cat), whatever
    // lies next to the model: co is chosen by the engine, not enumerated by the model a second time.
    if (name == "stdlib.cat" || name == "cos.cat") {
      std::error_code ec;
      fs::path p = libraryDir() / name;
      if (fs::is_regular_file(p, ec)) return p;
    }
    std::vector<fs::path> dirs{baseDir};
    for (const auto& d : opts.includeDirs) dirs.push_back(d);
    dirs.push_back(libraryDir());
    for (const auto& d : dirs) {
      std::error_code ec;
      fs::path p = d / name;
      if (fs::is_regular_file(p, ec)) return p;
    }
    return std::nullopt;
  }

  std::shared_ptr<const ModelFile> loadFile(const fs::path& path, const SourceLoc& from) {
    std::error_code ec;
    fs::path canon = fs::weakly_canonical(path, ec);
    // key: path, include directories and modification time (a rewritten file is parsed again)
    std::string key = cacheKey(canon.string());
    auto mtime = fs::last_write_time(path, ec);
    if (!ec)
      key += "\n@" + std::to_string(mtime.time_since_epoch().count()) + ":" + std::to_string(fs::file_size(path, ec));
    {
      std::lock_guard lock(cacheMutex());
      if (auto it = cache().find(key); it != cache().end()) return it->second;
    }
    for (const auto& s : stack)
      if (s == canon.string()) throw DiagnosticError(from, "include cycle through '" + path.string() + "'");
    std::ifstream in(path);
    if (!in) throw DiagnosticError(from, "cannot read model file '" + path.string() + "'");
    std::stringstream ss;
    ss << in.rdbuf();
    stack.push_back(canon.string());
    auto mf = std::make_shared<ModelFile>(parseCatFile(ss.str(), path.string()));
    resolve(mf->instrs, path.parent_path());
    stack.pop_back();
    std::lock_guard lock(cacheMutex());
    cache().emplace(key, mf);
    return mf;
  }

  void resolve(const std::vector<InstrPtr>& instrs, const fs::path& baseDir) {
    for (const auto& ip : instrs) {
      auto in = std::const_pointer_cast<Instr>(ip);
      if (in->kind == InstrKind::Include && builtinLibraryFile(in->name)) {
        in->included = loadBuiltin(in->name);
      } else if (in->kind == InstrKind::Include) {
        auto p = find(in->name, baseDir);
        if (!p) throw DiagnosticError(in->loc, "cannot find included file '" + in->name + "'");
        in->included = loadFile(*p, in->loc);
      }
      resolve(in->body, baseDir);
      resolve(in->elseBody, baseDir);
      for (const auto& b : in->armBodies) resolve(b, baseDir);
    }
  }

  // A built-in library file (cat/HerdLib.hpp), parsed once per process.
  static std::shared_ptr<const ModelFile> loadBuiltin(const std::string& name) {
    const std::string key = "<builtin>/" + name;
    std::lock_guard lock(cacheMutex());
    if (auto it = cache().find(key); it != cache().end()) return it->second;
    auto mf = std::make_shared<ModelFile>(parseCatFile(*builtinLibraryFile(name), key));
    cache().emplace(key, mf);
    return mf;
  }

  std::shared_ptr<const ModelFile> prelude(const std::string& mainPath) {
    if (!opts.prelude) return nullptr;
    fs::path p = libraryDir() / "stdlib.cat";
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) return nullptr;
    if (!mainPath.empty() && fs::weakly_canonical(mainPath, ec) == fs::weakly_canonical(p, ec)) return nullptr;
    return loadFile(p, SourceLoc{p.string(), 0, 0});
  }
};

}  // namespace

std::vector<fs::path> modelSearchDirs() {
  std::vector<fs::path> dirs;
  std::error_code ec;
  auto add = [&](const fs::path& d) {
    if (!fs::is_directory(d, ec)) return;
    fs::path c = fs::weakly_canonical(d, ec);
    if (std::find(dirs.begin(), dirs.end(), c) == dirs.end()) dirs.push_back(c);
  };
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path dir = exe.parent_path();
    fs::path d = dir;
    for (int up = 0; up < 3 && !d.empty(); ++up, d = d.parent_path())  // a build tree: the sources' models
      if (fs::is_regular_file(d / "CMakeCache.txt", ec)) {
        add(fs::path(PTXMM_SOURCE_DIR) / "models");
        break;
      }
    add(dir.parent_path() / "share" / "ptxmm" / "models");
  }
  add(fs::path(PTXMM_INSTALL_MODELS_DIR));
  return dirs;
}

fs::path libraryDir() {
  std::vector<fs::path> dirs = modelSearchDirs();
  return dirs.empty() ? fs::path(PTXMM_SOURCE_DIR) / "models" : dirs.front();
}

fs::path findModel(const std::string& arg) {
  std::error_code ec;
  if (fs::is_regular_file(arg, ec)) return arg;
  fs::path given(arg);
  std::vector<std::string> names;
  if (!given.empty() && given.is_relative()) {
    std::string base = given.filename().string();
    names.push_back(base);
    if (given.extension() != ".cat") names.push_back(base + ".cat");
  }
  std::vector<fs::path> dirs = modelSearchDirs();
  for (const auto& d : dirs)
    for (const auto& n : names)
      if (fs::is_regular_file(d / n, ec)) return d / n;
  std::string where, shipped;
  for (const auto& d : dirs) {
    where += (where.empty() ? "" : ", ") + d.string();
    if (!shipped.empty()) continue;
    std::vector<std::string> ms;
    for (const auto& e : fs::directory_iterator(d, ec))
      if (e.path().extension() == ".cat" && e.path().stem() != "stdlib") ms.push_back(e.path().stem().string());
    std::sort(ms.begin(), ms.end());
    for (const auto& m : ms) shipped += (shipped.empty() ? "" : ", ") + m;
  }
  std::string msg = fmt::format("model '{}' not found: no such file", arg);
  if (!dirs.empty()) msg += fmt::format(", and no shipped model of that name in {}", where);
  if (!shipped.empty()) msg += fmt::format(" (shipped: {})", shipped);
  throw DiagnosticError(SourceLoc{arg, 0, 0}, msg);
}

namespace {

std::mutex& noteMutex() {
  static std::mutex m;
  return m;
}

std::function<void(const std::string&)>& noteSink() {
  static std::function<void(const std::string&)> sink = [](const std::string& note) {
    std::cerr << "ptxmm: note: " << note << "\n";
  };
  return sink;
}

// The note naming the bound-empty herd names a model uses, once per model file and process.
void noteBoundEmpty(const Model& m, const fs::path& path) {
  std::vector<std::string> names;
  try {
    names = boundEmptyNames(m);
  } catch (const DiagnosticError&) {
    return;  // the model's static errors are reported when it is compiled for use
  }
  if (names.empty()) return;
  static std::set<std::string> noted;
  std::lock_guard lock(noteMutex());
  std::error_code ec;
  if (!noted.insert(fs::weakly_canonical(path, ec).string()).second) return;
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : " ") + n;
  noteSink()(
      fmt::format("{}: herd7 built-ins with no PTX counterpart bound to the empty set/relation: {} "
                  "(see the table \"herd7's cat library\" in models/README.md)",
                  path.string(), list));
}

}  // namespace

std::vector<std::string> boundEmptyNames(const Model& model) {
  return detail::compileModel(model, InterpreterOptions{}).emptyBound;
}

void setNoteSink(std::function<void(const std::string&)> sink) {
  std::lock_guard lock(noteMutex());
  noteSink() = std::move(sink);
}

Model loadModel(const fs::path& path, const LoadOptions& opts) {
  Loader l{opts, {}};
  Model m;
  m.prelude = l.prelude(path.string());
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw DiagnosticError(SourceLoc{path.string(), 0, 0}, "cannot find model file '" + path.string() + "'");
  m.main = l.loadFile(path, SourceLoc{path.string(), 0, 0});
  noteBoundEmpty(m, path);
  return m;
}

Model parseModel(std::string_view text, const std::string& file, const LoadOptions& opts) {
  Loader l{opts, {}};
  Model m;
  m.prelude = l.prelude("");
  auto mf = std::make_shared<ModelFile>(parseCatFile(text, file));
  fs::path base = fs::path(file).parent_path();
  if (base.empty()) base = ".";
  l.resolve(mf->instrs, base);
  m.main = mf;
  return m;
}

namespace {

void collectFlags(const std::vector<InstrPtr>& instrs, std::set<std::string>& out) {
  for (const auto& in : instrs) {
    if (in->kind == InstrKind::Check && in->checkKind == CheckKind::Flag && !in->name.empty()) out.insert(in->name);
    collectFlags(in->body, out);
    collectFlags(in->elseBody, out);
    for (const auto& b : in->armBodies) collectFlags(b, out);
    if (in->included) collectFlags(in->included->instrs, out);
  }
}

}  // namespace

std::set<std::string> flagNames(const Model& model) {
  std::set<std::string> out;
  if (model.prelude) collectFlags(model.prelude->instrs, out);
  if (model.main) collectFlags(model.main->instrs, out);
  return out;
}

}  // namespace ptxmm::cat
