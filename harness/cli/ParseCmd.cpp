// ptxmm parse FILE...: parse litmus tests and print their canonical form and hash.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/Commands.hpp"
#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"

namespace ptxmm::cli {

void addParseCommand(CLI::App& app, int& exitCode) {
  auto* cmd = app.add_subcommand(
      "parse",
      "Parse litmus tests (column or block layout, Dat3M or PTX spelling) and print, for each file, its\n"
      "canonical form followed by `Hash=<herd7's test hash>` (litmus/README.md). Errors are printed to stderr as\n"
      "`file:line:col: error: ...`; the remaining files are still parsed. Exit code 2 if any file failed.");
  struct Opts {
    std::vector<std::string> files;
    bool hashOnly = false;
  };
  auto opts = std::make_shared<Opts>();
  cmd->add_option("files", opts->files, "litmus files (.litmus)")->required();
  cmd->add_flag("--hash-only", opts->hashOnly, "print only `<file> Hash=<hash>` per file");
  cmd->callback([opts, &exitCode] {
    bool failed = false;
    for (const auto& f : opts->files) {
      litmus::ParseResult r = litmus::tryParseFile(f);
      if (!r.ok()) {
        for (const auto& d : r.diagnostics) std::cerr << d.str() << "\n";
        failed = true;
        continue;
      }
      for (const auto& w : r.test->warnings) std::cerr << w.str() << "\n";
      if (opts->hashOnly) {
        std::cout << f << " Hash=" << litmus::testHash(*r.test) << "\n";
      } else {
        std::cout << litmus::printCanonical(*r.test) << "Hash=" << litmus::testHash(*r.test) << "\n";
        if (opts->files.size() > 1) std::cout << "\n";
      }
    }
    exitCode = failed ? kUserError : kOk;
  });
}

}  // namespace ptxmm::cli
