// Surface and texture objects over the kernel's memory buffer (proxy bindings). Internal to runner/,
// and only with PTXMM_HAVE_CUDA.
#pragma once

#ifdef PTXMM_HAVE_CUDA

#include <cstdint>
#include <vector>

#include "ptxgen/Kernel.hpp"
#include "runner/Driver.hpp"

namespace ptxmm::runner::driver {

/// The memory buffer of a kernel with surface/texture bindings and the objects over it. With a
/// surface binding the buffer is an exportable VMM allocation, imported back as CUDA external memory
/// so that a 2D CUDA array can be mapped over each surface location's region: the array's elements
/// are the very words that the generic accesses use.
struct ProxyObjects {
  CUdeviceptr base = 0;
  size_t size = 0;
  CUmemGenericAllocationHandle handle = 0;
  bool mapped = false;
  CUexternalMemory ext = nullptr;
  std::vector<CUmipmappedArray> arrays;
  std::vector<CUsurfObject> surfaces;
  std::vector<CUtexObject> textures;
  std::vector<uint64_t> params;  ///< object handles in Kernel::bindings order
  std::vector<uint32_t> map;     ///< the surface map (surfaceMap()), uploaded for the kernel

  /// Allocate `bytes` (rounded up to the allocation granularity) as exportable device memory.
  void allocateExportable(size_t bytes, CUdevice dev);

  /// Create the objects of every binding over `mem` (global location l at l * region) and the
  /// surface map of `instances` cells `stride` apart; throws CudaError naming the location.
  void bind(const ptxgen::Kernel& kernel, CUdeviceptr mem, uint64_t region, uint64_t instances, uint64_t stride,
            CUdevice dev);

  /// Destroy everything (errors ignored: also used after a failed launch).
  void release();
};

}  // namespace ptxmm::runner::driver

#endif
