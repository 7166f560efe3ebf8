// The CUDA driver API, loaded with dlopen (never linked) so that ptxmm starts on machines with the
// CUDA toolkit but no driver, its errors, and loading a kernel module (JIT from PTX). Internal to
// runner/, and only with PTXMM_HAVE_CUDA.
#pragma once

#ifdef PTXMM_HAVE_CUDA

#include <cuda.h>

#include <stdexcept>
#include <string>

#include "ptxgen/Kernel.hpp"

namespace ptxmm::runner::driver {

// The versioned entry points (cuMemAlloc -> cuMemAlloc_v2) come from cuda.h's macros through the
// two-level stringification in Driver.cpp.
// (clang-format 14 is not idempotent on this X-macro list, hence the off/on pair.)
// clang-format off
#define PTXMM_CU_FUNCS(X) \
  X(cuInit) \
  X(cuGetErrorName) \
  X(cuGetErrorString) \
  X(cuDeviceGetCount) \
  X(cuDeviceGet) \
  X(cuDeviceGetName) \
  X(cuDeviceGetAttribute) \
  X(cuDriverGetVersion) \
  X(cuDevicePrimaryCtxRetain) \
  X(cuCtxSetCurrent) \
  X(cuModuleLoadDataEx) \
  X(cuModuleGetFunction) \
  X(cuOccupancyMaxActiveClusters) \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
  X(cuMemAlloc) \
  X(cuMemsetD8) \
  X(cuStreamCreate) \
  X(cuMemcpyHtoDAsync) \
  X(cuMemsetD32Async) \
  X(cuLaunchKernel) \
  X(cuLaunchKernelEx) \
  X(cuStreamQuery) \
  X(cuMemcpyDtoH) \
  X(cuStreamDestroy) \
  X(cuMemFree) \
  X(cuModuleUnload) \
  X(cuDevicePrimaryCtxRelease) \
  X(cuDevicePrimaryCtxReset) \
  X(cuMemGetAllocationGranularity) \
  X(cuMemCreate) \
  X(cuMemRelease) \
  X(cuMemAddressReserve) \
  X(cuMemAddressFree) \
  X(cuMemMap) \
  X(cuMemUnmap) \
  X(cuMemSetAccess) \
  X(cuMemExportToShareableHandle) \
  X(cuImportExternalMemory) \
  X(cuDestroyExternalMemory) \
  X(cuExternalMemoryGetMappedMipmappedArray) \
  X(cuMipmappedArrayGetLevel) \
  X(cuMipmappedArrayDestroy) \
  X(cuSurfObjectCreate) \
  X(cuSurfObjectDestroy) \
  X(cuTexObjectCreate) \
  X(cuTexObjectDestroy) \
  X(cuMemcpy2D) \
  X(cuMemcpyHtoD)
// clang-format on

/// Entry points that only some tests need: a driver without them still runs the others (nullptr, and
/// the test that needs one fails naming it). cuTensorMapEncodeTiled: CUDA 12.0.
#define PTXMM_CU_OPTIONAL_FUNCS(X) X(cuTensorMapEncodeTiled)

/// The driver's entry points (`p_` + name); `ok` false, with `error`, when libcuda or one of them is missing.
struct CuApi {
  bool ok = false;
  std::string error;
#define PTXMM_DECL(f) decltype(&f) p_##f = nullptr;
  PTXMM_CU_FUNCS(PTXMM_DECL)
  PTXMM_CU_OPTIONAL_FUNCS(PTXMM_DECL)
#undef PTXMM_DECL
};

/// The driver API, loaded on first use.
[[nodiscard]] const CuApi& api();

/// "NAME: description" of a driver error.
[[nodiscard]] std::string cuErr(CUresult e);

/// A failed driver call (what failed and the driver's error).
struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws CudaError "`what`: error" unless `e` is CUDA_SUCCESS.
void check(CUresult e, const char* what);

/// A kernel module loaded into the current context: the stress kernel and its init kernel.
struct LoadedModule {
  CUmodule module = nullptr;
  CUfunction test = nullptr;       ///< Kernel::entry
  CUfunction init = nullptr;       ///< Kernel::initEntry
  CUfunction dependent = nullptr;  ///< Kernel::dependentEntry (nullptr without one)
};

/// JIT-compile `kernel`'s PTX into the current context; throws CudaError with the JIT's error log.
[[nodiscard]] LoadedModule loadModule(const ptxgen::Kernel& kernel);

}  // namespace ptxmm::runner::driver

#endif
