// The public entry points of the event lowering, and the dispatch of an instruction to its family
// (lower/<Family>.cpp), generated from ptx/PtxOps.def.
#include "events/Lower.hpp"

#include <fmt/format.h>

#include "events/lower/Lowerer.hpp"

namespace ptxmm::events {
namespace lowering {

// One case per row of PtxOps.def, to the function of the row's family: a row of a family without one
// does not compile, and -Werror=switch rejects a switch that misses a row.

Flow Lowerer::step(PathState& st, const Instr& in, Work& work) {
  switch (in.op) {
#define PTX_OP(Id, mnemonic, family, ...) \
  case OpId::Id:                          \
    return lower##family(*this, st, in, work);
#include "ptx/PtxOps.def"
#undef PTX_OP
    case OpId::Count_: break;
  }
  unsupported(in, "no lowering rule");
  return Flow::Next;
}

int Lowerer::mbarOperandIndex(const Instr& in) {
  switch (in.op) {
#define PTX_OP(Id, mnemonic, family, ...) \
  case OpId::Id:                          \
    return mbarrierOperand##family(in);
#include "ptx/PtxOps.def"
#undef PTX_OP
    case OpId::Count_: break;
  }
  return -1;
}

}  // namespace lowering

EventProgram lower(const litmus::Test& test, const LowerOptions& options) {
  return lowering::Lowerer(test, options).run();
}

std::optional<int> findLocation(const EventProgram& program, const litmus::LocRef& ref) {
  if (ref.cta >= 0) {
    std::string n = fmt::format("{}@cta{}", ref.name, ref.cta);
    for (size_t l = 0; l < program.locations.size(); ++l)
      if (program.locations[l].name == n) return static_cast<int>(l);
    return std::nullopt;
  }
  std::optional<int> found;
  int matches = 0;
  for (size_t l = 0; l < program.locations.size(); ++l) {
    const auto& L = program.locations[l];
    if (L.name == ref.name) return static_cast<int>(l);
    if (L.name.rfind(ref.name + "@cta", 0) == 0) {
      found = static_cast<int>(l);
      ++matches;
    }
  }
  return matches == 1 ? found : std::nullopt;
}

std::optional<std::pair<int, size_t>> instructionAt(const litmus::Test& test, const SourceLoc& src) {
  for (size_t t = 0; t < test.threads.size(); ++t) {
    const auto& code = test.threads[t].code;
    for (size_t k = 0; k < code.size(); ++k)
      if (code[k].instr && code[k].instr->src.line == src.line && code[k].instr->src.col == src.col &&
          code[k].instr->src.file == src.file)
        return std::make_pair(static_cast<int>(t), k);
  }
  return std::nullopt;
}

}  // namespace ptxmm::events
