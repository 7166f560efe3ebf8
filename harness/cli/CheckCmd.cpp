// ptxmm check: placeholder registration until the stage lands (replaced by its owner).
#include <iostream>

#include "cli/Commands.hpp"

namespace ptxmm::cli {

void addCheckCommand(CLI::App& app, int& exitCode) {
  auto* cmd = app.add_subcommand("check", "(not yet available)");
  cmd->callback([&exitCode] {
    std::cerr << "ptxmm check: not implemented yet\n";
    exitCode = kUserError;
  });
}

}  // namespace ptxmm::cli
