// What a campaign store is read for: comparing two stores (mcompare7-style, per test and state),
// merging stores (one per Slurm task or GPU machine) into one, and the self-contained HTML report
// (tables written here, plots by scripts/campaign-plots.py with matplotlib, inlined as base64 PNG).
#pragma once

#include <ostream>
#include <string>

#include "campaign/Store.hpp"

namespace ptxmm::campaign {

/// Prints per test (matched by hash and name) and per state the counts of A and B side by side,
/// flagging states one saw and the other never did. Returns the number of such states.
int compareStores(Store& a, Store& b, std::ostream& out);

/// Copies `in`'s tests, configurations and finished runs into `out` (the same test, configuration
/// or run is kept once; a finished run replaces a pending one). Returns the number of runs added.
int mergeStore(Store& out, Store& in);

/// Options of writeHtml.
struct HtmlOptions {
  std::string out;     ///< the HTML file
  std::string script;  ///< scripts/campaign-plots.py (empty: the source tree's)
  std::string python;  ///< empty: /usr/bin/python3 (where Debian's python3-matplotlib is) if present, else python3
};

/// Writes the report; plots are left out, with the reason in the page and on `err`, when Python or
/// matplotlib is missing. Returns false when the file cannot be written.
bool writeHtml(Store& store, const HtmlOptions& options, std::ostream& err);

/// The JSON the plot script reads: per test rates, per configuration scores and coverage, kills
/// over time.
[[nodiscard]] nlohmann::json plotData(Store& store);

/// Base64 (RFC 4648) of bytes.
[[nodiscard]] std::string base64(const std::string& bytes);

}  // namespace ptxmm::campaign
