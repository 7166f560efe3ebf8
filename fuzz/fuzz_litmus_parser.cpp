// libFuzzer target: the litmus parser (both layouts and spellings) gives a Test or located diagnostics,
// never a crash or an exception of another kind.
#include "FuzzTarget.hpp"
#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ptxmm::litmus::ParseResult r = ptxmm::litmus::tryParseTest(ptxmm::fuzz::text(data, size), "fuzz.litmus");
  if (r.ok()) (void)ptxmm::litmus::printCanonical(*r.test);  // a parsed test always prints
  return 0;
}
