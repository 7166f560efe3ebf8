// Running the ptxmm binary as a user does, in a scratch directory, stdout and stderr apart (CLI tests).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "LitmusTexts.hpp"

namespace cli_test {

namespace fs = std::filesystem;

struct Run {
  int rc = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A scratch directory per test case, removed at the end.
struct Scratch {
  fs::path dir;
  explicit Scratch(const std::string& name)
      : dir(fs::temp_directory_path() / ("ptxmm-cli-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  fs::path write(const std::string& name, const std::string& text) const {
    fs::path p = dir / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }
  Run ptxmm(const std::string& args) const {
    Run r;
    std::string cmd =
        std::string(PTXMM_EXE) + " " + args + " >" + (dir / "stdout").string() + " 2>" + (dir / "stderr").string();
    int status = std::system(cmd.c_str());
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(dir / "stdout");
    r.err = slurp(dir / "stderr");
    return r;
  }
};

// Message passing with relaxed accesses (Sometimes under ptx.cat, Never under SC).
inline const char* const kMP = test_litmus::kRelaxedMP;

}  // namespace cli_test
