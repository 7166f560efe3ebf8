// Final states of the stress kernel: the candidate values of each observed term (the histogram's
// buckets), canonical state keys, and the decoding of the device histogram.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "litmus/Ast.hpp"
#include "ptxgen/Kernel.hpp"

namespace ptxmm::runner {

/// Candidate values of each observed term (what the histogram counts); values outside land in
/// "other". Default: 0, 1, init values and every immediate of the test and the condition.
[[nodiscard]] std::vector<std::vector<int64_t>> candidateValues(const litmus::Test& test, const ptxgen::Kernel& kernel,
                                                                const std::vector<std::string>& extraStates = {});

/// Number of histogram buckets (product of candidate counts, then "other", then "timed out").
[[nodiscard]] uint64_t bucketCount(const std::vector<std::vector<int64_t>>& candidates);

/// A decoded histogram: counts per canonical state key.
struct Histogram {
  std::map<std::string, uint64_t> states;  ///< state key → count
  uint64_t other = 0;                      ///< instances whose state had a value outside the candidates
  uint64_t timedOut = 0;                   ///< instances that exceeded a spin bound
  std::vector<std::string> otherSamples;   ///< raw state keys of some "other" instances
  /// Total instances counted.
  [[nodiscard]] uint64_t total() const;
};

/// State key ("0:r1=1; x=2;", outcome::stateKey) of a value vector in kernel term order.
[[nodiscard]] std::string stateKey(const ptxgen::Kernel& kernel, const std::vector<int64_t>& values);

/// Decode raw bucket counts (and raw samples: count then records) into a Histogram.
[[nodiscard]] Histogram decodeHistogram(const ptxgen::Kernel& kernel,
                                        const std::vector<std::vector<int64_t>>& candidates,
                                        const std::vector<uint64_t>& buckets, const std::vector<uint64_t>& samples);

}  // namespace ptxmm::runner
