// libFuzzer target: parse + lowering. A test that parses is lowered to events, refused with a located
// diagnostic, or stopped by its budget; nothing else may escape.
#include "FuzzTarget.hpp"
#include "events/Lower.hpp"
#include "litmus/Parser.hpp"
#include "support/Diagnostic.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ptxmm::Budget budget = ptxmm::fuzz::inputBudget();
  ptxmm::BudgetScope scope(budget);
  try {
    ptxmm::litmus::ParseResult r = ptxmm::litmus::tryParseTest(ptxmm::fuzz::text(data, size), "fuzz.litmus");
    if (!r.ok()) return 0;
    ptxmm::events::LowerOptions lo;
    lo.maxEvents = 2000;
    (void)ptxmm::events::lower(*r.test, lo);
  } catch (const ptxmm::DiagnosticError&) {
  } catch (const ptxmm::events::SizeLimit&) {
  } catch (const ptxmm::BudgetExceeded&) {
  }
  return 0;
}
