// ptxmm gen: placeholder registration until the stage lands (replaced by its owner).
#include <iostream>

#include "cli/Commands.hpp"

namespace ptxmm::cli {

void addGenCommand(CLI::App& app, int& exitCode) {
  auto* cmd = app.add_subcommand("gen", "(not yet available)");
  cmd->callback([&exitCode] {
    std::cerr << "ptxmm gen: not implemented yet\n";
    exitCode = kUserError;
  });
}

}  // namespace ptxmm::cli
