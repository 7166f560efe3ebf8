#include "support/Diagnostic.hpp"

#include <algorithm>

namespace ptxmm {

std::string SourceLoc::str() const {
  std::string s = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (col > 0) s += ":" + std::to_string(col);
  }
  return s;
}

std::string Diagnostic::str() const {
  const char* sev = severity == Severity::Error ? "error" : severity == Severity::Warning ? "warning" : "note";
  return loc.str() + ": " + sev + ": " + message;
}

int editDistance(const std::string& a, const std::string& b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closestMatch(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  int bestDist = static_cast<int>(word.size()) / 3 + 2;
  for (const auto& c : candidates) {
    int d = editDistance(word, c);
    if (d < bestDist || (d == bestDist && !best.empty() && c < best)) {
      if (d < bestDist || best.empty()) {
        bestDist = d;
        best = c;
      }
    }
  }
  return best;
}

}  // namespace ptxmm
