// libFuzzer target: the cat parser gives a model or a located DiagnosticError.
#include "FuzzTarget.hpp"
#include "cat/Model.hpp"
#include "support/Diagnostic.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ptxmm::cat::LoadOptions lo;
  lo.prelude = false;  // includes are resolved against the library: keep each input on its own
  try {
    (void)ptxmm::cat::parseModel(ptxmm::fuzz::text(data, size), "fuzz.cat", lo);
  } catch (const ptxmm::DiagnosticError&) {
  }
  return 0;
}
