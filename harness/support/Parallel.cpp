#include "support/Parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ptxmm {

int maxWorkers() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

int workerCount(size_t n, int jobs) {
  int want = jobs > 0 ? jobs : maxWorkers();
  want = std::min(want, maxWorkers());
  return static_cast<int>(std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(want), n)));
}

void parallelFor(size_t n, int jobs, const std::function<void(size_t, int)>& fn) {
  if (n == 0) return;
  const int workers = workerCount(n, jobs);
  if (workers == 1) {
    for (size_t i = 0; i < n; ++i) fn(i, 0);
    return;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr first;
  std::mutex mu;
  auto work = [&](int w) {
    for (size_t i = next++; i < n; i = next++) {
      try {
        fn(i, w);
      } catch (...) {
        std::lock_guard lock(mu);
        if (!first) first = std::current_exception();
        next = n;  // hand out nothing more
      }
    }
  };
  std::vector<std::jthread> pool;
  pool.reserve(static_cast<size_t>(workers));
  for (int w = 0; w < workers; ++w) pool.emplace_back(work, w);
  pool.clear();  // joins
  if (first) std::rethrow_exception(first);
}

}  // namespace ptxmm
