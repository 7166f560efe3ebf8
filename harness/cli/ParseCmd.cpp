// ptxmm parse: placeholder registration until the stage lands (replaced by its owner).
#include <iostream>

#include "cli/Commands.hpp"

namespace ptxmm::cli {

void addParseCommand(CLI::App& app, int& exitCode) {
  auto* cmd = app.add_subcommand("parse", "(not yet available)");
  cmd->callback([&exitCode] {
    std::cerr << "ptxmm parse: not implemented yet\n";
    exitCode = kUserError;
  });
}

}  // namespace ptxmm::cli
