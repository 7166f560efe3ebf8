// ptxmm: formal memory-model verification harness for NVIDIA PTX.
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "check/Checker.hpp"
#include "cli/Commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "ptxmm: check PTX litmus tests (async proxy, proxy fences, mbarrier, cluster launch control)\n"
      "against a cat model, and run them as stress kernels on a GPU."};
  app.set_version_flag("--version", std::string("ptxmm ") + PTXMM_VERSION);
  app.require_subcommand(1);
  int exitCode = ptxmm::cli::kOk;
  ptxmm::cli::addParseCommand(app, exitCode);
  ptxmm::cli::addCheckCommand(app, exitCode);
  ptxmm::cli::addGenCommand(app, exitCode);
  ptxmm::cli::addRunCommand(app, exitCode);
  ptxmm::cli::addFencesCommand(app, exitCode);
  ptxmm::cli::addCampaignCommand(app, exitCode);
  ptxmm::cli::addKernelCommands(app, exitCode);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : ptxmm::cli::kUserError;
  } catch (const std::exception& e) {
    std::cerr << "ptxmm: internal error: " << e.what() << "\n";
    return ptxmm::cli::kInternal;
  }
  if (ptxmm::check::checksLeftRunning() > 0) {
    // A check abandoned at its deadline, or one freeing its solver, still runs on a thread of its own: exit
    // without waiting for it or tearing down what it uses (everything is written).
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::_Exit(exitCode);
  }
  return exitCode;
}
