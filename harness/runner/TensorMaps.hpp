// Tensor maps of a kernel (ptxgen::Kernel::tensorMaps): the arguments of cuTensorMapEncodeTiled for
// each map, checked against the driver's requirements without a GPU; the host image of the tensor
// buffer (namespace ptxgen::tmap) and, with PTXMM_HAVE_CUDA, its encoding and upload.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ptxgen/Kernel.hpp"

namespace ptxmm::runner {

/// The arguments of one cuTensorMapEncodeTiled call (CUDA driver API, "Tensor Map Object Management"),
/// as plain values. The element type is CU_TENSOR_MAP_DATA_TYPE_UINT32; interleave, swizzle, L2
/// promotion and out-of-bounds fill are NONE.
struct TensorEncodeArgs {
  uint32_t rank = 1;
  uint64_t globalAddress = 0;               ///< the box (generic address of device memory)
  std::array<uint64_t, 5> globalDim{};      ///< elements per dimension, dimension 0 innermost
  std::array<uint64_t, 4> globalStrides{};  ///< bytes between consecutive indices of dimensions 1..rank-1
  std::array<uint32_t, 5> boxDim{};         ///< elements of the box per dimension
  std::array<uint32_t, 5> elementStrides{};
  uint32_t elementBytes = ptxgen::tmap::kElemBytes;
};

/// The arguments of the map of `spec` whose tensor is the box at `boxAddress`: a tensor of exactly one
/// 16-byte box (tmap::kBoxBytes / kElemBytes elements in dimension 0, 1 in the others), so that a copy at
/// coordinate 0 moves the whole box and completes tmap::kBoxBytes bytes.
[[nodiscard]] TensorEncodeArgs encodeArgs(const ptxgen::TensorMapSpec& spec, uint64_t boxAddress);

/// "" if `a` meets cuTensorMapEncodeTiled's requirements (tensorRank 1..5; globalAddress 16-byte
/// aligned; globalDim 1..2^32; globalStrides multiples of 16, below 2^40 and covering the previous
/// dimension; boxDim 1..256 with boxDim[0] * element size a multiple of 16 bytes; elementStrides 1..8)
/// and the box covers the tensor (what the stress kernel's copies assume); else the first requirement broken.
[[nodiscard]] std::string checkEncodeArgs(const TensorEncodeArgs& a);

/// The host image of the tensor buffer for `cells` cells with the boxes filled in (each slot's box holds
/// its descriptor version: 8 bytes little-endian, then zeros) and the maps left zero.
[[nodiscard]] std::vector<uint8_t> tensorBufferImage(const ptxgen::Kernel& kernel, uint64_t cells);

/// Generic address of the box of `slot` of cell `cell` in a tensor buffer at `base`.
[[nodiscard]] uint64_t boxAddress(const ptxgen::Kernel& kernel, uint64_t base, uint64_t cell, int slot);

/// Where the global locations of a launch lie: location l's cell c at mem + l * region + c * stride.
struct CellLayout {
  uint64_t mem = 0;
  uint64_t region = 0;
  uint64_t stride = 0;
};

/// The address that the map of `slot` (a slot of `spec`) of cell `cell` locates: its box in the tensor
/// buffer at `base`, or for a map written through, the cell of its tensor location (spec.tensorLoc).
[[nodiscard]] uint64_t mapTarget(const ptxgen::Kernel& kernel, const ptxgen::TensorMapSpec& spec, int slot,
                                 uint64_t cell, uint64_t base, const CellLayout& cells);

/// The kernel's tensor maps as the JSON of a run (location, rank, element type, global and box sizes,
/// versions).
[[nodiscard]] nlohmann::json tensorMapsJson(const ptxgen::Kernel& kernel);

#ifdef PTXMM_HAVE_CUDA
/// The tensor buffer of `kernel` for `cells` cells, to be uploaded at device address `base`: every map
/// encoded with cuTensorMapEncodeTiled (through the dlopen'ed driver), pointing at its mapTarget. Throws
/// driver::CudaError naming the map location, cell and version when the driver lacks the entry point, an
/// argument breaks a requirement (checkEncodeArgs) or the driver refuses the encoding.
[[nodiscard]] std::vector<uint8_t> encodeTensorBuffer(const ptxgen::Kernel& kernel, uint64_t cells, uint64_t base,
                                                      const CellLayout& layout);
#endif

}  // namespace ptxmm::runner
