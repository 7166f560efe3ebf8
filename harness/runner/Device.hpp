// The device fingerprint recorded with every hardware run: the GPU, its driver and clocks, and the
// toolkit that assembled the kernels.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ptxmm::runner {

/// Device fingerprint.
struct DeviceInfo {
  bool available = false;
  std::string error;  ///< why no device is available
  std::string name;
  int smMajor = 0, smMinor = 0, smCount = 0;
  int driverVersion = 0;                ///< cuDriverGetVersion
  int cudaVersion = 0;                  ///< CUDA_VERSION of the toolkit headers
  std::string ptxas;                    ///< ptxas --version
  int smClockMHz = 0, memClockMHz = 0;  ///< NVML current clocks (0 if unreadable)
  int maxSmClockMHz = 0;
  [[nodiscard]] nlohmann::json toJson() const;
};

/// Query the first GPU (never throws; `available` false without CUDA or a device).
[[nodiscard]] DeviceInfo queryDevice();

/// Number of CUDA devices this process sees (0 without CUDA or a device; CUDA_VISIBLE_DEVICES applies).
[[nodiscard]] int deviceCount();

/// Inverse of DeviceInfo::toJson.
[[nodiscard]] DeviceInfo deviceInfoFromJson(const nlohmann::json& j);

}  // namespace ptxmm::runner
