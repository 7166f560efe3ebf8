// Developer tool: per-skeleton statistics of one litmus test (events, path choices, engine times).
// Build: see bench/run-bench.sh (compiled against the build-engines libraries).
#include <z3++.h>

#include <chrono>
#include <iostream>

#include "cat/Model.hpp"
#include "check/StateSpec.hpp"
#include "enum/Engine.hpp"
#include "events/Lower.hpp"
#include "events/Skeleton.hpp"
#include "litmus/Parser.hpp"
#include "smt/Engine.hpp"

int main(int argc, char** argv) {
  using namespace ptxmm;
  if (argc < 3) {
    std::cerr << "usage: profile MODEL TEST [enum|smt|both]\n";
    return 2;
  }
  std::string which = argc > 3 ? argv[3] : "both";
  for (int i = 4; i < argc; ++i) {
    std::string kv = argv[i];
    auto eq = kv.find('=');
    z3::set_param(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str());
  }
  cat::Model model = cat::loadModel(argv[1]);
  litmus::Test test = litmus::parseFile(argv[2]);
  events::EventProgram prog = events::lower(test);
  check::StateSpec spec = check::makeStateSpec(prog);
  std::cout << "events " << prog.events.size() << " path choices " << events::countPathChoices(prog) << "\n";
  events::forEachPathChoice(prog, [&](const std::vector<int>& c) {
    auto sk = events::buildSkeleton(prog, c);
    size_t reads = 0, writes = 0;
    for (size_t i = 0; i < sk.size(); ++i) {
      reads += sk.event(i).type == events::EventType::Read;
      writes += sk.event(i).type == events::EventType::Write;
    }
    std::cout << "  skeleton n=" << sk.size() << " R=" << reads << " W=" << writes << (sk.cut ? " cut" : "")
              << (sk.blocked ? " blocked" : "") << "\n";
    return true;
  });
  auto time = [](auto&& f) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = f();
    std::cout << "  " << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s, "
              << r.states.size() << " states, candidates/calls " << r.candidates << " " << r.message << "\n";
  };
  if (which != "smt") {
    std::cout << "enum:\n";
    time([&] { return enumeration::runEnum(prog, model, spec); });
  }
  if (which != "enum") {
    std::cout << "smt:\n";
    z3::context ctx;
    time([&] { return smt::runSmt(ctx, prog, model, spec); });
  }
}
