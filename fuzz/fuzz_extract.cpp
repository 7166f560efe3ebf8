// libFuzzer target: the PTX module reader and the extractor (harness/extract/) on arbitrary bytes. Bad input
// must give a DiagnosticError or a per-kernel located error, never a crash, a hang or unbounded memory: the
// abstract execution is bounded by ExtractOptions (steps, recorded instructions, call depth, threads).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "extract/Extract.hpp"
#include "extract/Module.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ptxmm::extract::ExtractOptions opt;
  opt.maxSteps = 20000;  // a fuzzer's loop may not end: keep each input fast
  opt.maxTotalSteps = 200000;
  opt.block = 64;
  opt.cluster = 1;
  try {
    auto module = ptxmm::extract::readModule(text, "fuzz.ptx");
    (void)ptxmm::extract::extractModule(module, opt);
  } catch (const ptxmm::DiagnosticError&) {
  }
  return 0;
}
