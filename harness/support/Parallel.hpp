// The one worker pool of ptxmm: runs the indices 0..n-1 of a job list on a few threads. Callers keep
// per-worker state (a z3 context) indexed by the worker number it passes.
#pragma once

#include <cstddef>
#include <functional>

namespace ptxmm {

/// Number of workers parallelFor uses for `n` jobs when asked for `jobs` (0 or less: one per hardware
/// thread). Never more than the jobs, the hardware threads and `maxWorkers()`; at least 1.
[[nodiscard]] int workerCount(size_t n, int jobs);

/// Upper bound on workers this machine can hold: its hardware threads. More workers than cores only add
/// solver contexts and memory to a CPU-bound check (measured: -j 1024 → 3.2 GB and slower than -j 2).
[[nodiscard]] int maxWorkers();

/// Calls fn(i, worker) once for every i in [0, n), on workerCount(n, jobs) threads that take the next
/// index as they finish (worker ∈ [0, workerCount)). With one worker it runs on the calling thread.
/// An exception thrown by fn stops the handing out of further indices; the first one is rethrown after
/// every worker has finished.
void parallelFor(size_t n, int jobs, const std::function<void(size_t i, int worker)>& fn);

}  // namespace ptxmm
