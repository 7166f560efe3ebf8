// The device fingerprint: the driver API's device attributes, NVML clocks, the ptxas version.
#include "runner/Device.hpp"

#include <dlfcn.h>

#include "ptxgen/Assemble.hpp"
#include "runner/Driver.hpp"

namespace ptxmm::runner {

using nlohmann::json;

json DeviceInfo::toJson() const {
  return json{{"available", available},
              {"error", error},
              {"name", name},
              {"sm", std::to_string(smMajor) + std::to_string(smMinor)},
              {"smCount", smCount},
              {"driverVersion", driverVersion},
              {"cudaVersion", cudaVersion},
              {"ptxas", ptxas},
              {"smClockMHz", smClockMHz},
              {"maxSmClockMHz", maxSmClockMHz},
              {"memClockMHz", memClockMHz}};
}

namespace {

/// NVML through dlopen (never linked): current SM / memory clocks and the max SM clock.
void readNvmlClocks(DeviceInfo& info) {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_LAZY);
  if (lib == nullptr) return;
  using InitFn = int (*)();
  using HandleFn = int (*)(unsigned, void**);
  using ClockFn = int (*)(void*, int, unsigned*);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
  auto handle = reinterpret_cast<HandleFn>(dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
  auto clock = reinterpret_cast<ClockFn>(dlsym(lib, "nvmlDeviceGetClockInfo"));
  auto maxClock = reinterpret_cast<ClockFn>(dlsym(lib, "nvmlDeviceGetMaxClockInfo"));
  auto shutdown = reinterpret_cast<InitFn>(dlsym(lib, "nvmlShutdown"));
  void* dev = nullptr;
  if (init && handle && clock && init() == 0 && handle(0, &dev) == 0) {
    unsigned mhz = 0;
    if (clock(dev, 1, &mhz) == 0) info.smClockMHz = static_cast<int>(mhz);   // NVML_CLOCK_SM
    if (clock(dev, 2, &mhz) == 0) info.memClockMHz = static_cast<int>(mhz);  // NVML_CLOCK_MEM
    if (maxClock && maxClock(dev, 1, &mhz) == 0) info.maxSmClockMHz = static_cast<int>(mhz);
    if (shutdown) shutdown();
  }
  dlclose(lib);
}

}  // namespace

#ifndef PTXMM_HAVE_CUDA

DeviceInfo queryDevice() {
  DeviceInfo d;
  d.error = "ptxmm was built without the CUDA driver API (PTXMM_HAVE_CUDA off)";
  d.ptxas = ptxgen::ptxasVersion();
  return d;
}

int deviceCount() { return 0; }

#else

int deviceCount() {
  if (!driver::api().ok || driver::api().p_cuInit(0) != CUDA_SUCCESS) return 0;
  int count = 0;
  if (driver::api().p_cuDeviceGetCount(&count) != CUDA_SUCCESS) return 0;
  return count;
}

using namespace driver;

DeviceInfo queryDevice() {
  DeviceInfo d;
  d.cudaVersion = CUDA_VERSION;
  d.ptxas = ptxgen::ptxasVersion();
  if (!api().ok) {
    d.error = api().error;
    return d;
  }
  CUresult e = api().p_cuInit(0);
  if (e != CUDA_SUCCESS) {
    d.error = "cuInit failed: " + cuErr(e);
    return d;
  }
  int count = 0;
  if (api().p_cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    d.error = "no CUDA device";
    return d;
  }
  CUdevice dev = 0;
  api().p_cuDeviceGet(&dev, 0);
  char name[256] = {};
  api().p_cuDeviceGetName(name, sizeof name, dev);
  d.name = name;
  api().p_cuDeviceGetAttribute(&d.smMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  api().p_cuDeviceGetAttribute(&d.smMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  api().p_cuDeviceGetAttribute(&d.smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  api().p_cuDriverGetVersion(&d.driverVersion);
  readNvmlClocks(d);
  d.available = true;
  return d;
}

#endif

DeviceInfo deviceInfoFromJson(const json& j) {
  DeviceInfo d;
  d.available = j.value("available", false);
  d.error = j.value("error", "");
  d.name = j.value("name", "");
  std::string sm = j.value("sm", "00");
  if (sm.size() >= 2) {
    d.smMajor = std::stoi(sm.substr(0, sm.size() - 1));
    d.smMinor = sm.back() - '0';
  }
  d.smCount = j.value("smCount", 0);
  d.driverVersion = j.value("driverVersion", 0);
  d.cudaVersion = j.value("cudaVersion", 0);
  d.ptxas = j.value("ptxas", "");
  d.smClockMHz = j.value("smClockMHz", 0);
  d.maxSmClockMHz = j.value("maxSmClockMHz", 0);
  d.memClockMHz = j.value("memClockMHz", 0);
  return d;
}

}  // namespace ptxmm::runner
