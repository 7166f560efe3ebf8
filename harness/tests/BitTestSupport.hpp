// Random bit matrices for the tests of the concrete algebras (support and cat stages).
#pragma once

#include <random>

#include "support/BitMatrix.hpp"

namespace ptxmm::bittesting {

/// An n×n matrix with each pair present with probability `percent`/100.
inline BitMatrix randomMatrix(size_t n, std::mt19937& rng, int percent) {
  BitMatrix m(n);
  std::uniform_int_distribution<int> d(0, 99);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (d(rng) < percent) m.set(i, j);
  return m;
}

/// A random subset of m (each pair kept with probability 1/2).
inline BitMatrix randomPart(const BitMatrix& m, std::mt19937& rng) {
  BitMatrix p(m.size());
  m.forEach([&](size_t i, size_t j) {
    if (rng() % 2) p.set(i, j);
  });
  return p;
}

}  // namespace ptxmm::bittesting
