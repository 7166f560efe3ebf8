// libFuzzer target: `.expect` files give expectation lines or a located DiagnosticError.
#include "FuzzTarget.hpp"
#include "outcome/Expectations.hpp"
#include "support/Diagnostic.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)ptxmm::outcome::parseExpectations(ptxmm::fuzz::text(data, size), "fuzz.expect");
  } catch (const ptxmm::DiagnosticError&) {
  }
  return 0;
}
