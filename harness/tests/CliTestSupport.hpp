// Running the ptxmm binary as a user does, in a scratch directory, stdout and stderr apart (CLI tests).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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
inline const char* kMP = R"(PTX MP
{ x = 0; y = 0 }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, y ;
 st.relaxed.gpu y, 1 | ld.relaxed.gpu r1, x ;
exists (1:r0 == 1 /\ 1:r1 == 0)
)";

}  // namespace cli_test
