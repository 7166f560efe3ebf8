// Tensor maps: encode arguments, their checks, the tensor buffer's image and its JSON description.
#include "runner/TensorMaps.hpp"

#include <cstring>

#ifdef PTXMM_HAVE_CUDA
#include "runner/Driver.hpp"
#endif

namespace ptxmm::runner {

namespace tm = ptxgen::tmap;

TensorEncodeArgs encodeArgs(const ptxgen::TensorMapSpec& spec, uint64_t boxAddress) {
  TensorEncodeArgs a;
  a.rank = static_cast<uint32_t>(spec.rank);
  a.globalAddress = boxAddress;
  const uint32_t inner = tm::kBoxBytes / tm::kElemBytes;
  for (uint32_t d = 0; d < a.rank && d < 5; ++d) {
    a.globalDim[d] = d == 0 ? inner : 1;
    a.boxDim[d] = d == 0 ? inner : 1;
    a.elementStrides[d] = 1;
  }
  // Dimension d >= 1 starts tm::kBoxBytes after the previous one: the packed size of one box row.
  for (uint32_t d = 1; d < a.rank && d < 5; ++d) a.globalStrides[d - 1] = tm::kBoxBytes;
  return a;
}

std::string checkEncodeArgs(const TensorEncodeArgs& a) {
  if (a.rank < 1 || a.rank > 5) return "tensorRank " + std::to_string(a.rank) + " is not in 1..5";
  if (a.globalAddress % 16 != 0) return "globalAddress " + std::to_string(a.globalAddress) + " is not 16-byte aligned";
  uint64_t packed = static_cast<uint64_t>(a.elementBytes);  // bytes of one index of the current dimension
  for (uint32_t d = 0; d < a.rank; ++d) {
    const std::string dim = "[" + std::to_string(d) + "]";
    if (a.globalDim[d] == 0 || a.globalDim[d] > (uint64_t{1} << 32))
      return "globalDim" + dim + " = " + std::to_string(a.globalDim[d]) + " is not in 1..2^32";
    if (a.boxDim[d] == 0 || a.boxDim[d] > 256)
      return "boxDim" + dim + " = " + std::to_string(a.boxDim[d]) + " is not in 1..256";
    if (a.elementStrides[d] == 0 || a.elementStrides[d] > 8)
      return "elementStrides" + dim + " = " + std::to_string(a.elementStrides[d]) + " is not in 1..8";
    if (a.boxDim[d] > a.globalDim[d])
      return "boxDim" + dim + " = " + std::to_string(a.boxDim[d]) + " exceeds globalDim" + dim + " = " +
             std::to_string(a.globalDim[d]) + " (the box must lie inside the tensor)";
    const uint64_t extent = packed * a.globalDim[d];
    if (d + 1 < a.rank) {
      const uint64_t s = a.globalStrides[d];
      const std::string sd = "globalStrides[" + std::to_string(d) + "] = " + std::to_string(s);
      if (s % 16 != 0) return sd + " is not a multiple of 16";
      if (s >= (uint64_t{1} << 40)) return sd + " is not below 2^40";
      if (s < extent)
        return sd + " is smaller than dimension " + std::to_string(d) + " (" + std::to_string(extent) + " bytes)";
      packed = s;
    }
  }
  if ((static_cast<uint64_t>(a.boxDim[0]) * a.elementBytes) % 16 != 0)
    return "boxDim[0] * element size = " + std::to_string(static_cast<uint64_t>(a.boxDim[0]) * a.elementBytes) +
           " bytes is not a multiple of 16 (interleave NONE)";
  return "";
}

std::vector<uint8_t> tensorBufferImage(const ptxgen::Kernel& kernel, uint64_t cells) {
  const uint64_t rec = tm::recordBytes(kernel.tensorSlots);
  std::vector<uint8_t> image(cells * rec, 0);
  for (uint64_t c = 0; c < cells; ++c)
    for (const auto& spec : kernel.tensorMaps)
      for (size_t i = 0; i < spec.versions.size(); ++i) {
        const int slot = spec.firstSlot + static_cast<int>(i);
        const uint64_t v = static_cast<uint64_t>(spec.versions[i]);
        uint8_t* box = image.data() + c * rec + tm::boxOffset(kernel.tensorSlots, slot);
        for (int b = 0; b < 8; ++b) box[b] = static_cast<uint8_t>(v >> (8 * b));
      }
  return image;
}

uint64_t boxAddress(const ptxgen::Kernel& kernel, uint64_t base, uint64_t cell, int slot) {
  return base + cell * tm::recordBytes(kernel.tensorSlots) + tm::boxOffset(kernel.tensorSlots, slot);
}

uint64_t mapTarget(const ptxgen::Kernel& kernel, const ptxgen::TensorMapSpec& spec, int slot, uint64_t cell,
                   uint64_t base, const CellLayout& cells) {
  if (spec.tensorLoc >= 0)
    return cells.mem + static_cast<uint64_t>(spec.tensorLoc) * cells.region + cell * cells.stride;
  return boxAddress(kernel, base, cell, slot);
}

nlohmann::json tensorMapsJson(const ptxgen::Kernel& kernel) {
  nlohmann::json maps = nlohmann::json::array();
  for (const auto& spec : kernel.tensorMaps) {
    const TensorEncodeArgs a = encodeArgs(spec, 0);
    nlohmann::json dims = nlohmann::json::array(), box = nlohmann::json::array();
    for (uint32_t d = 0; d < a.rank; ++d) {
      dims.push_back(a.globalDim[d]);
      box.push_back(a.boxDim[d]);
    }
    maps.push_back({{"location", kernel.globals.at(static_cast<size_t>(spec.globalLoc)).name},
                    {"rank", spec.rank},
                    {"elementType", "u32"},
                    {"globalDim", dims},
                    {"boxDim", box},
                    {"boxBytes", tm::kBoxBytes},
                    {"versions", spec.versions},
                    {"sharedSources", spec.sharedSources},
                    {"tensor", spec.tensorLoc >= 0 ? kernel.globals.at(static_cast<size_t>(spec.tensorLoc)).name
                                                   : std::string()}});
  }
  return maps;
}

#ifdef PTXMM_HAVE_CUDA

std::vector<uint8_t> encodeTensorBuffer(const ptxgen::Kernel& kernel, uint64_t cells, uint64_t base,
                                        const CellLayout& layout) {
  using driver::api;
  using driver::CudaError;
  if (api().p_cuTensorMapEncodeTiled == nullptr)
    throw CudaError(
        "the CUDA driver lacks cuTensorMapEncodeTiled (driver API 12.0 or newer), which the test's "
        "cp.async.bulk.tensor needs for its tensor maps");
  std::vector<uint8_t> image = tensorBufferImage(kernel, cells);
  const uint64_t rec = tm::recordBytes(kernel.tensorSlots);
  static_assert(sizeof(CUtensorMap) == tm::kMapBytes, "a CUtensorMap is the 128-byte map of ptxgen::tmap");
  for (const auto& spec : kernel.tensorMaps) {
    const std::string& name = kernel.globals.at(static_cast<size_t>(spec.globalLoc)).name;
    for (size_t i = 0; i < spec.versions.size(); ++i) {
      const int slot = spec.firstSlot + static_cast<int>(i);
      for (uint64_t c = 0; c < cells; ++c) {
        const TensorEncodeArgs a = encodeArgs(spec, mapTarget(kernel, spec, slot, c, base, layout));
        auto where = [&] {
          return "tensor map '" + name + "' (descriptor version " + std::to_string(spec.versions[i]) + ", cell " +
                 std::to_string(c) + "): ";
        };
        if (std::string why = checkEncodeArgs(a); !why.empty()) throw CudaError(where() + why);
        CUtensorMap map{};
        const CUresult e = api().p_cuTensorMapEncodeTiled(
            &map, CU_TENSOR_MAP_DATA_TYPE_UINT32, a.rank, reinterpret_cast<void*>(a.globalAddress), a.globalDim.data(),
            a.globalStrides.data(), a.boxDim.data(), a.elementStrides.data(), CU_TENSOR_MAP_INTERLEAVE_NONE,
            CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (e != CUDA_SUCCESS) throw CudaError(where() + "cuTensorMapEncodeTiled: " + driver::cuErr(e));
        std::memcpy(image.data() + c * rec + tm::mapOffset(slot), &map, sizeof map);
      }
    }
  }
  return image;
}

#endif

}  // namespace ptxmm::runner
