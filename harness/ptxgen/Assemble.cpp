#include "ptxgen/Assemble.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "support/Process.hpp"

namespace ptxmm::ptxgen {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

/// ptxas on one stress kernel takes seconds; past this it is hung, not busy.
constexpr std::chrono::milliseconds kToolTimeout = 300s;

/// Runs a CUDA tool; the result's stdout and stderr, or why it did not run properly.
ProcessResult runTool(const std::vector<std::string>& argv, std::chrono::milliseconds timeout = kToolTimeout) {
  ProcessOptions o;
  o.timeout = timeout;
  return runProcess(argv, o);
}

std::string tempBase() {
  static int counter = 0;
  return (fs::temp_directory_path() / ("ptxmm_" + std::to_string(getpid()) + "_" + std::to_string(counter++))).string();
}

}  // namespace

std::optional<std::string> findCudaTool(const std::string& name) {
  if (auto onPath = findProgram(name)) return onPath;
  std::vector<std::string> dirs;
  if (const char* home = std::getenv("CUDA_HOME")) dirs.push_back(std::string(home) + "/bin");
  dirs.emplace_back("/usr/local/cuda/bin");
  for (const auto& d : dirs)
    if (auto p = findProgram((fs::path(d) / name).string())) return p;
  return std::nullopt;
}

AssembleResult assemble(const std::string& ptxText, const std::string& arch, bool keepCubin,
                        const std::string& cubinPath) {
  AssembleResult r;
  auto ptxas = findCudaTool("ptxas");
  if (!ptxas) {
    r.toolMissing = true;
    r.diagnostics = "ptxas not found (looked in $PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)";
    return r;
  }
  const std::string base = tempBase();
  const std::string ptxPath = base + ".ptx";
  const std::string out = cubinPath.empty() ? base + ".cubin" : cubinPath;
  {
    std::ofstream f(ptxPath);
    f << ptxText;
  }
  const std::vector<std::string> argv = {*ptxas, "-arch=" + arch, "-O3", ptxPath, "-o", out};
  r.command = commandLine(argv);
  auto run = runTool(argv);
  r.ok = run.ok();
  // An ordinary rejection is ptxas's own report (the caller says ptxas rejected the kernel); a ptxas
  // that could not start, crashed or hung is said so, with whatever it printed.
  bool abnormal = !run.spawnError.empty() || run.timedOut || run.signal != 0;
  r.diagnostics = abnormal ? run.error() + "\n" : run.out + run.err;
  std::error_code ec;
  fs::remove(ptxPath, ec);
  if (keepCubin && r.ok)
    r.cubinPath = out;
  else
    fs::remove(out, ec);
  return r;
}

std::optional<std::string> disassemble(const std::string& cubinPath, std::string& error) {
  std::vector<std::string> argv;
  if (auto tool = findCudaTool("cuobjdump"))
    argv = {*tool, "-sass", cubinPath};
  else if (auto tool = findCudaTool("nvdisasm"))
    argv = {*tool, cubinPath};
  else {
    error = "neither cuobjdump nor nvdisasm was found (install the CUDA toolkit's binary utilities)";
    return std::nullopt;
  }
  auto run = runTool(argv);
  if (run.ok()) return run.out;
  error = run.error();
  return std::nullopt;
}

std::string ptxasVersion() {
  // Asked once per process: every device fingerprint carries it, and a campaign records thousands.
  static const std::string version = [] {
    auto ptxas = findCudaTool("ptxas");
    if (!ptxas) return std::string();
    auto run = runTool({*ptxas, "--version"}, 30s);
    if (!run.ok()) return std::string();
    std::stringstream ss(run.out + run.err);
    std::string line, last;
    while (std::getline(ss, line))
      if (!line.empty() && line.find("release") != std::string::npos) last = line;
    return last;
  }();
  return version;
}

}  // namespace ptxmm::ptxgen
