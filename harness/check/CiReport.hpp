// Suite results in the formats CI systems and IDEs read: JUnit XML (one testcase per litmus test;
// wrong verdicts are failures, tests that were not decided are errors) and SARIF 2.1.0 (one result
// per finding: data race, undefined behaviour, deadlock, a verdict that differs from its
// expectation, a test that could not be decided), each located at a `file:line`.
#pragma once

#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "check/Verdict.hpp"

namespace ptxmm::check {

/// What the suite knows about one test, for the CI formats.
struct TestRecord {
  std::string file;                                       ///< litmus file as given
  std::string name;                                       ///< test name ("" if it did not parse)
  Status status = Status::Ok;                             ///< Error also for unreadable files and a bad `.expect`
  enum Outcome { Pass, Fail, Unchecked } outcome = Pass;  ///< Unchecked: no expectation to compare with
  std::string message;                  ///< why it failed or was not decided (first line used as summary)
  int line = 0;                         ///< line the message is about (0 = the test as a whole)
  std::set<std::string> flags;          ///< flags of the verdict (status Ok)
  std::set<std::string> expectedFlags;  ///< flags of the expectation (when there is one)
  std::string expectReason;             ///< the expectation's reason
  int conditionLine = 0;                ///< line of the final condition (0 = unknown)
  double seconds = 0;
  std::string log;                      ///< herd log of the verdict (status Ok)
  std::vector<FindingReport> findings;  ///< the instructions behind the flags (check::findings)
};

/// JUnit XML for the records (suite `suiteName`, e.g. "ptxmm check ptx smt").
void writeJUnit(const std::vector<TestRecord>& records, const std::string& suiteName, double seconds, std::ostream& os);

/// SARIF 2.1.0 log of the records' findings. A flag with findings gives one result per check that raised
/// it, located at the first instruction it names (the others as related locations); flags the
/// expectation lists are reported at level "note" with an external suppression carrying the
/// expectation's reason; everything else at level "error".
void writeSarif(const std::vector<TestRecord>& records, const std::string& toolVersion, std::ostream& os);

/// Line of the final condition (`exists`/`~exists`/`forall`) in the litmus file (0 if not found).
[[nodiscard]] int conditionLineOf(const std::string& litmusFile);

/// Line number that a "FILE:LINE[:COL]: ..." message gives for `file` (0 if it gives none).
[[nodiscard]] int messageLine(const std::string& message, const std::string& file);

}  // namespace ptxmm::check
