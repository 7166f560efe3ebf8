// Command-line durations.
#include "support/Duration.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace ptxmm {

std::optional<double> parseDurationSeconds(const std::string& text) {
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.')) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(v) || v < 0) return std::nullopt;
  std::string unit(end);
  double scale = 0;
  if (unit.empty() || unit == "s")
    scale = 1;
  else if (unit == "ms")
    scale = 1e-3;
  else if (unit == "min")
    scale = 60;
  else if (unit == "h")
    scale = 3600;
  else
    return std::nullopt;
  return v * scale;
}

unsigned durationMs(double seconds) {
  if (seconds <= 0) return 0;
  double ms = std::ceil(seconds * 1000);
  if (ms >= static_cast<double>(std::numeric_limits<unsigned>::max())) return std::numeric_limits<unsigned>::max();
  return static_cast<unsigned>(ms);
}

}  // namespace ptxmm
