// The dlopen'ed CUDA driver API and module loading.
#include "runner/Driver.hpp"

#ifdef PTXMM_HAVE_CUDA

#include <dlfcn.h>

#define PTXMM_STR(x) #x
#define PTXMM_XSTR(x) PTXMM_STR(x)

namespace ptxmm::runner::driver {

const CuApi& api() {
  static const CuApi a = [] {
    CuApi x;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      x.error = std::string("cannot load the CUDA driver (libcuda.so.1): ") + dlerror();
      return x;
    }
#define PTXMM_LOAD(f)                                                       \
  x.p_##f = reinterpret_cast<decltype(x.p_##f)>(dlsym(lib, PTXMM_XSTR(f))); \
  if (x.p_##f == nullptr) {                                                 \
    x.error = "the CUDA driver lacks " PTXMM_XSTR(f);                       \
    return x;                                                               \
  }
    PTXMM_CU_FUNCS(PTXMM_LOAD)
#undef PTXMM_LOAD
#define PTXMM_LOAD_OPTIONAL(f) x.p_##f = reinterpret_cast<decltype(x.p_##f)>(dlsym(lib, PTXMM_XSTR(f)));
    PTXMM_CU_OPTIONAL_FUNCS(PTXMM_LOAD_OPTIONAL)
#undef PTXMM_LOAD_OPTIONAL
    x.ok = true;
    return x;
  }();
  return a;
}

std::string cuErr(CUresult e) {
  const char* name = nullptr;
  const char* msg = nullptr;
  api().p_cuGetErrorName(e, &name);
  api().p_cuGetErrorString(e, &msg);
  return std::string(name ? name : "CUDA_ERROR") + ": " + (msg ? msg : "?");
}

void check(CUresult e, const char* what) {
  if (e != CUDA_SUCCESS) throw CudaError(std::string(what) + ": " + cuErr(e));
}

LoadedModule loadModule(const ptxgen::Kernel& kernel) {
  LoadedModule m;
  char errLog[8192] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[] = {errLog, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof errLog))};
  CUresult le = api().p_cuModuleLoadDataEx(&m.module, kernel.ptx.c_str(), 2, opts, vals);
  if (le != CUDA_SUCCESS) throw CudaError("cuModuleLoadDataEx: " + cuErr(le) + "\n" + errLog);
  check(api().p_cuModuleGetFunction(&m.test, m.module, kernel.entry.c_str()), "cuModuleGetFunction");
  check(api().p_cuModuleGetFunction(&m.init, m.module, kernel.initEntry.c_str()), "api().p_cuModuleGetFunction(init)");
  if (!kernel.dependentEntry.empty())
    check(api().p_cuModuleGetFunction(&m.dependent, m.module, kernel.dependentEntry.c_str()),
          "cuModuleGetFunction(dependent)");
  return m;
}

}  // namespace ptxmm::runner::driver

#endif
