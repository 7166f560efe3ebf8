// The shared worker pool: every index once, fixed worker numbers, exceptions rethrown.
#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>
#include <set>
#include <stdexcept>
#include <vector>

#include "support/Parallel.hpp"

TEST_CASE("parallelFor runs every index once on at most `jobs` workers", "[support][parallel]") {
  for (int jobs : {1, 3, 0}) {
    std::vector<int> seen(100, 0);
    std::set<int> workers;
    std::mutex mu;
    ptxmm::parallelFor(seen.size(), jobs, [&](size_t i, int w) {
      std::lock_guard lock(mu);
      ++seen[i];
      workers.insert(w);
    });
    for (int n : seen) CHECK(n == 1);
    CHECK(*workers.begin() >= 0);
    CHECK(*workers.rbegin() < ptxmm::workerCount(seen.size(), jobs));
    if (jobs > 0) CHECK(static_cast<int>(workers.size()) <= jobs);
  }
  CHECK(ptxmm::workerCount(2, 8) == 2);
  CHECK(ptxmm::workerCount(0, 8) == 1);
  ptxmm::parallelFor(0, 4, [](size_t, int) { FAIL("no index"); });
}

TEST_CASE("parallelFor rethrows the first exception after the workers finish", "[support][parallel]") {
  std::atomic<int> ran{0};
  CHECK_THROWS_AS(ptxmm::parallelFor(50, 2,
                                     [&](size_t i, int) {
                                       ++ran;
                                       if (i == 3) throw std::runtime_error("boom");
                                     }),
                  std::runtime_error);
  CHECK(ran >= 4);
}
