// ptxmm gen: litmus test → PTX stress kernel (sm_90a / sm_100a), optionally assembled with ptxas
// and disassembled (--sass).
#include <fstream>
#include <iostream>

#include "cli/Commands.hpp"
#include "litmus/Parser.hpp"
#include "ptxgen/Assemble.hpp"
#include "ptxgen/Kernel.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::cli {

namespace {

struct GenArgs {
  std::string test;
  std::string arch;
  std::string output;
  bool sass = false;
  bool check = false;
  int groups = 4;
  int stressWarps = 2;
  int bankConflictLanes = 0;
  int threadSkewNs = 0;
};

int runGen(const GenArgs& a) {
  litmus::ParseResult pr = litmus::tryParseFile(a.test);
  if (!pr.ok()) {
    for (const auto& d : pr.diagnostics) std::cerr << d.str() << "\n";
    return kUserError;
  }
  ptxgen::GenOptions opt;
  opt.arch = a.arch.empty() ? ptxgen::requiredArch(*pr.test) : a.arch;
  opt.groupsPerBlock = a.groups;
  opt.stressWarpsPerBlock = a.stressWarps;
  opt.bankConflictLanes = a.bankConflictLanes;
  opt.threadSkewNs = a.threadSkewNs;
  if (opt.arch == "sm_90a" && ptxgen::requiredArch(*pr.test) == "sm_100a") {
    std::cerr << a.test << ": error: test uses clusterlaunchcontrol (sm_100a only); use --arch sm_100a\n";
    return kUserError;
  }
  ptxgen::Kernel k;
  try {
    k = ptxgen::generate(*pr.test, opt);
  } catch (const DiagnosticError& e) {
    std::cerr << e.diagnostic().str() << "\n";
    return kUserError;
  }
  for (const auto& n : k.notes) std::cerr << a.test << ": note: " << n << "\n";
  if (!k.notRunnable.empty()) std::cerr << a.test << ": note: not runnable: " << k.notRunnable << "\n";
  if (a.output.empty() || a.output == "-") {
    std::cout << k.ptx;
  } else {
    std::ofstream f(a.output);
    if (!f) {
      std::cerr << a.output << ": error: cannot write\n";
      return kUserError;
    }
    f << k.ptx;
  }
  if (a.sass || a.check) {
    auto r = ptxgen::assemble(k.ptx, opt.arch, a.sass);
    if (r.toolMissing) {
      std::cerr << "ptxmm gen: " << r.diagnostics << "\n";
      return kSkipped;
    }
    if (!r.ok) {
      std::cerr << a.test << ": error: ptxas rejected the generated kernel:\n" << r.diagnostics;
      return kInternal;
    }
    if (!r.diagnostics.empty()) std::cerr << r.diagnostics;
    if (a.sass) {
      std::string err;
      auto listing = ptxgen::disassemble(r.cubinPath, err);
      std::remove(r.cubinPath.c_str());
      if (!listing) {
        std::cerr << "ptxmm gen: --sass: " << err << "\n";
        return kSkipped;
      }
      std::cout << *listing;
    }
  }
  return kOk;
}

}  // namespace

void addGenCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<GenArgs>();
  auto* cmd = app.add_subcommand("gen", "generate the PTX stress kernel of a litmus test");
  cmd->add_option("test", args->test, "litmus file")->required();
  cmd->add_option("--arch", args->arch, "target: sm_90a or sm_100a (default: sm_100a for CLC tests, else sm_90a)")
      ->check(CLI::IsMember({"sm_90a", "sm_100a"}));
  cmd->add_option("-o,--output", args->output, "write the PTX here (default: stdout)");
  cmd->add_flag("--sass", args->sass, "assemble with ptxas and print the SASS (cuobjdump -sass / nvdisasm)");
  cmd->add_flag("--check", args->check, "assemble with ptxas and report its diagnostics");
  cmd->add_option("--groups", args->groups, "testing warp groups per CTA")->check(CLI::Range(1, 32));
  cmd->add_option("--stress-warps", args->stressWarps, "memory-stress warps per CTA")->check(CLI::Range(0, 31));
  cmd->add_option("--bank-conflict-lanes", args->bankConflictLanes,
                  "lanes per stress warp doing shared-memory bank-conflict stress (0: none)")
      ->check(CLI::Range(0, 32));
  cmd->add_option("--thread-skew-ns", args->threadSkewNs,
                  "after the start barrier each litmus thread sleeps a pseudo-random 0..N ns (threadSkewNs; 0: off)")
      ->check(CLI::Range(0, 1000000));
  cmd->callback([args, &exitCode] { exitCode = runGen(*args); });
}

}  // namespace ptxmm::cli
