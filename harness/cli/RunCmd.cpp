// ptxmm run: placeholder registration until the stage lands (replaced by its owner).
#include <iostream>

#include "cli/Commands.hpp"

namespace ptxmm::cli {

void addRunCommand(CLI::App& app, int& exitCode) {
  auto* cmd = app.add_subcommand("run", "(not yet available)");
  cmd->callback([&exitCode] {
    std::cerr << "ptxmm run: not implemented yet\n";
    exitCode = kUserError;
  });
}

}  // namespace ptxmm::cli
