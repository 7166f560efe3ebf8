#include "ptxgen/Assemble.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace ptxmm::ptxgen {
namespace {

namespace fs = std::filesystem;

/// Run a shell command, capturing stdout+stderr. Returns the exit status.
int runCapture(const std::string& cmd, std::string& output) {
  output.clear();
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return -1;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) output.append(buf.data(), n);
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string tempBase() {
  static int counter = 0;
  return (fs::temp_directory_path() / ("ptxmm_" + std::to_string(getpid()) + "_" + std::to_string(counter++))).string();
}

}  // namespace

std::optional<std::string> findCudaTool(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string d;
    while (std::getline(ss, d, ':'))
      if (!d.empty()) dirs.push_back(d);
  }
  if (const char* home = std::getenv("CUDA_HOME")) dirs.push_back(std::string(home) + "/bin");
  dirs.emplace_back("/usr/local/cuda/bin");
  for (const auto& d : dirs) {
    fs::path p = fs::path(d) / name;
    std::error_code ec;
    if (fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0) return p.string();
  }
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
  r.command = *ptxas + " -arch=" + arch + " -O3 " + quote(ptxPath) + " -o " + quote(out);
  int status = runCapture(r.command, r.diagnostics);
  r.ok = status == 0;
  std::error_code ec;
  fs::remove(ptxPath, ec);
  if (keepCubin && r.ok)
    r.cubinPath = out;
  else
    fs::remove(out, ec);
  return r;
}

std::optional<std::string> disassemble(const std::string& cubinPath, std::string& error) {
  std::string out;
  if (auto tool = findCudaTool("cuobjdump")) {
    if (runCapture(*tool + " -sass " + quote(cubinPath), out) == 0) return out;
    error = "cuobjdump failed: " + out;
    return std::nullopt;
  }
  if (auto tool = findCudaTool("nvdisasm")) {
    if (runCapture(*tool + " " + quote(cubinPath), out) == 0) return out;
    error = "nvdisasm failed: " + out;
    return std::nullopt;
  }
  error = "neither cuobjdump nor nvdisasm was found (install the CUDA toolkit's binary utilities)";
  return std::nullopt;
}

std::string ptxasVersion() {
  auto ptxas = findCudaTool("ptxas");
  if (!ptxas) return "";
  std::string out;
  if (runCapture(*ptxas + " --version", out) != 0) return "";
  std::stringstream ss(out);
  std::string line, last;
  while (std::getline(ss, line))
    if (!line.empty() && line.find("release") != std::string::npos) last = line;
  return last;
}

}  // namespace ptxmm::ptxgen
