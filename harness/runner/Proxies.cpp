// Surface and texture objects over the kernel's memory buffer.
#include "runner/Proxies.hpp"

#ifdef PTXMM_HAVE_CUDA

#include <unistd.h>

#include <numeric>

#include "runner/StressParams.hpp"

namespace ptxmm::runner::driver {

void ProxyObjects::allocateExportable(size_t bytes, CUdevice dev) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t granule = 0;
  check(api().p_cuMemGetAllocationGranularity(&granule, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
        "cuMemGetAllocationGranularity");
  size = (bytes + granule - 1) / granule * granule;
  check(api().p_cuMemCreate(&handle, size, &prop, 0), "cuMemCreate (exportable memory for surfaces)");
  check(api().p_cuMemAddressReserve(&base, size, 0, 0, 0), "cuMemAddressReserve");
  check(api().p_cuMemMap(base, size, 0, handle, 0), "cuMemMap");
  mapped = true;
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  check(api().p_cuMemSetAccess(base, size, &access, 1), "cuMemSetAccess");
  int fd = -1;
  check(api().p_cuMemExportToShareableHandle(&fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
        "cuMemExportToShareableHandle");
  CUDA_EXTERNAL_MEMORY_HANDLE_DESC desc{};
  desc.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
  desc.handle.fd = fd;
  desc.size = size;
  CUresult e = api().p_cuImportExternalMemory(&ext, &desc);  // owns the descriptor on success
  if (e != CUDA_SUCCESS) {
    close(fd);
    check(e, "cuImportExternalMemory");
  }
}

void ProxyObjects::bind(const ptxgen::Kernel& kernel, CUdeviceptr mem, uint64_t region, uint64_t instances,
                        uint64_t stride, CUdevice dev) {
  namespace surf = ptxgen::surf;
  for (const auto& b : kernel.bindings) {
    const std::string& name = kernel.globals.at(static_cast<size_t>(b.globalLoc)).name;
    const CUdeviceptr at = mem + static_cast<uint64_t>(b.globalLoc) * region;
    if (b.proxy == ptx::Proxy::Texture) {
      int maxWidth = 0;
      api().p_cuDeviceGetAttribute(&maxWidth, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH, dev);
      if (region / 4 > static_cast<uint64_t>(maxWidth))
        throw CudaError("texture binding of '" + name + "': " + std::to_string(region / 4) +
                        " elements exceed the device's linear texture width " + std::to_string(maxWidth) +
                        " (lower memStride or columns)");
      CUDA_RESOURCE_DESC res{};
      res.resType = CU_RESOURCE_TYPE_LINEAR;
      res.res.linear.devPtr = at;
      res.res.linear.format = CU_AD_FORMAT_UNSIGNED_INT32;
      res.res.linear.numChannels = 1;
      res.res.linear.sizeInBytes = region;
      CUDA_TEXTURE_DESC tex{};
      tex.flags = CU_TRSF_READ_AS_INTEGER;
      tex.filterMode = CU_TR_FILTER_MODE_POINT;
      tex.addressMode[0] = CU_TR_ADDRESS_MODE_CLAMP;
      CUtexObject t = 0;
      check(api().p_cuTexObjectCreate(&t, &res, &tex, nullptr), ("cuTexObjectCreate for '" + name + "'").c_str());
      textures.push_back(t);
      params.push_back(t);
      continue;
    }
    const uint64_t rows = region / (uint64_t{surf::kArrayWidth} * 4);
    int maxHeight = 0;
    api().p_cuDeviceGetAttribute(&maxHeight, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT, dev);
    if (rows > static_cast<uint64_t>(maxHeight))
      throw CudaError("surface binding of '" + name + "': " + std::to_string(rows) +
                      " rows exceed the device's 2D surface height " + std::to_string(maxHeight) +
                      " (lower memStride or columns)");
    CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC desc{};
    desc.offset = static_cast<uint64_t>(b.globalLoc) * region;
    desc.arrayDesc.Width = surf::kArrayWidth;
    desc.arrayDesc.Height = rows;
    desc.arrayDesc.Depth = 0;
    desc.arrayDesc.Format = CU_AD_FORMAT_UNSIGNED_INT32;
    desc.arrayDesc.NumChannels = 1;
    desc.arrayDesc.Flags = CUDA_ARRAY3D_SURFACE_LDST;
    desc.numLevels = 1;
    CUmipmappedArray mip = nullptr;
    check(api().p_cuExternalMemoryGetMappedMipmappedArray(&mip, ext, &desc),
          ("cuExternalMemoryGetMappedMipmappedArray for '" + name + "'").c_str());
    arrays.push_back(mip);
    CUarray array = nullptr;
    check(api().p_cuMipmappedArrayGetLevel(&array, mip, 0), "cuMipmappedArrayGetLevel");
    CUDA_RESOURCE_DESC res{};
    res.resType = CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = array;
    CUsurfObject sobj = 0;
    check(api().p_cuSurfObjectCreate(&sobj, &res), ("cuSurfObjectCreate for '" + name + "'").c_str());
    surfaces.push_back(sobj);
    params.push_back(sobj);
    // The array's layout is the driver's (block-linear, not row-major): discover which region word
    // holds which element by copying 1, 2, 3, ... into the array and reading the region back.
    // The region is re-initialised by ptxmm_init before every launch.
    const uint64_t elements = rows * surf::kArrayWidth;
    std::vector<uint32_t> seq(elements), layout(elements);
    std::iota(seq.begin(), seq.end(), 1u);
    CUDA_MEMCPY2D copy{};
    copy.srcMemoryType = CU_MEMORYTYPE_HOST;
    copy.srcHost = seq.data();
    copy.srcPitch = uint64_t{surf::kArrayWidth} * 4;
    copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    copy.dstArray = array;
    copy.WidthInBytes = uint64_t{surf::kArrayWidth} * 4;
    copy.Height = rows;
    check(api().p_cuMemcpy2D(&copy), "cuMemcpy2D (surface layout probe)");
    check(api().p_cuMemcpyDtoH(layout.data(), at, elements * 4), "cuMemcpyDtoH (surface layout probe)");
    std::string error;
    auto m = surfaceMap(layout, instances, stride, error);
    if (m.empty()) throw CudaError("surface binding of '" + name + "': " + error);
    if (!map.empty() && m != map)
      throw CudaError("surface binding of '" + name + "': its array's layout differs from the first surface's");
    map = std::move(m);
  }
}

void ProxyObjects::release() {
  for (auto s : surfaces) api().p_cuSurfObjectDestroy(s);
  for (auto t : textures) api().p_cuTexObjectDestroy(t);
  for (auto a : arrays) api().p_cuMipmappedArrayDestroy(a);
  surfaces.clear();
  textures.clear();
  arrays.clear();
  if (ext != nullptr) api().p_cuDestroyExternalMemory(ext);
  ext = nullptr;
  if (mapped) api().p_cuMemUnmap(base, size);
  mapped = false;
  if (base != 0 && handle != 0) api().p_cuMemAddressFree(base, size);
  if (handle != 0) api().p_cuMemRelease(handle);
  base = 0;
  handle = 0;
}

}  // namespace ptxmm::runner::driver

#endif
