#include "runner/Runner.hpp"

#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <set>
#include <sstream>
#include <thread>

#include "outcome/State.hpp"
#include "ptxgen/Assemble.hpp"
#include "support/Diagnostic.hpp"

#ifdef PTXMM_HAVE_CUDA
#include <cuda.h>
#endif

namespace ptxmm::runner {

namespace {

using nlohmann::json;

template <class T>
void field(const json& j, const char* key, T& out, std::set<std::string>& seen) {
  if (j.contains(key)) {
    out = j.at(key).get<T>();
    seen.insert(key);
  }
}

/// Isolated child: the pipe on which a '.' is written after every finished batch (heartbeat).
int gProgressFd = -1;

uint64_t gcd64(uint64_t a, uint64_t b) { return std::gcd(a, b); }

/// A random multiplier coprime with n (1 when n <= 1).
uint64_t coprime(uint64_t n, std::mt19937_64& rng) {
  if (n <= 2) return 1;
  for (int tries = 0; tries < 64; ++tries) {
    uint64_t m = 1 + rng() % (n - 1);
    if (gcd64(m, n) == 1) return m;
  }
  return 1;
}

void collectImms(const litmus::Prop& p, std::set<int64_t>& out) {
  for (const auto* t : {&p.lhs, &p.rhs})
    if (t->kind == litmus::Term::Kind::Const) out.insert(t->value);
  for (const auto& k : p.kids) collectImms(k, out);
}

}  // namespace

StressParams paramsFromJson(const json& j) {
  StressParams p;
  if (!j.is_object()) throw std::runtime_error("stress parameters: expected a JSON object");
  std::set<std::string> seen;
  field(j, "iterations", p.iterations, seen);
  field(j, "columns", p.columns, seen);
  field(j, "groupsPerBlock", p.groupsPerBlock, seen);
  field(j, "stressWarpsPerBlock", p.stressWarpsPerBlock, seen);
  field(j, "memStressPct", p.memStressPct, seen);
  field(j, "memStressIterations", p.memStressIterations, seen);
  field(j, "memStressPattern", p.memStressPattern, seen);
  field(j, "preStressPct", p.preStressPct, seen);
  field(j, "preStressIterations", p.preStressIterations, seen);
  field(j, "preStressPattern", p.preStressPattern, seen);
  field(j, "stressLineSize", p.stressLineSize, seen);
  field(j, "stressTargetLines", p.stressTargetLines, seen);
  field(j, "scratchMemorySize", p.scratchMemorySize, seen);
  field(j, "stressAssignmentStrategy", p.stressAssignmentStrategy, seen);
  field(j, "memStride", p.memStride, seen);
  field(j, "bankConflictLanes", p.bankConflictLanes, seen);
  field(j, "bankConflictPct", p.bankConflictPct, seen);
  field(j, "bankConflictIterations", p.bankConflictIterations, seen);
  field(j, "bankConflictPattern", p.bankConflictPattern, seen);
  field(j, "shufflePct", p.shufflePct, seen);
  field(j, "barrierPct", p.barrierPct, seen);
  field(j, "spinBound", p.spinBound, seen);
  field(j, "launchTimeoutMs", p.launchTimeoutMs, seen);
  field(j, "launchesPerBatch", p.launchesPerBatch, seen);
  field(j, "seed", p.seed, seen);
  for (const auto& [k, v] : j.items())
    if (!seen.count(k)) throw std::runtime_error("stress parameters: unknown key '" + k + "'");
  if (p.stressTargetLines < 1 || p.stressTargetLines > 16)
    throw std::runtime_error("stressTargetLines must be in 1..16");
  if (p.stressLineSize < 1 || p.scratchMemorySize < p.stressLineSize)
    throw std::runtime_error("stressLineSize must be in 1..scratchMemorySize");
  if (p.memStride < 4) throw std::runtime_error("memStride must be >= 4 bytes");
  if (p.bankConflictLanes < 0 || p.bankConflictLanes > 32)
    throw std::runtime_error("bankConflictLanes must be in 0..32");
  if (p.bankConflictIterations < 0) throw std::runtime_error("bankConflictIterations must be >= 0");
  if (p.bankConflictPattern < 0 || p.bankConflictPattern > 3)
    throw std::runtime_error("bankConflictPattern must be in 0..3");
  if (p.launchesPerBatch < 1) p.launchesPerBatch = 1;
  return p;
}

json toJson(const StressParams& p) {
  return json{{"iterations", p.iterations},
              {"columns", p.columns},
              {"groupsPerBlock", p.groupsPerBlock},
              {"stressWarpsPerBlock", p.stressWarpsPerBlock},
              {"memStressPct", p.memStressPct},
              {"memStressIterations", p.memStressIterations},
              {"memStressPattern", p.memStressPattern},
              {"preStressPct", p.preStressPct},
              {"preStressIterations", p.preStressIterations},
              {"preStressPattern", p.preStressPattern},
              {"stressLineSize", p.stressLineSize},
              {"stressTargetLines", p.stressTargetLines},
              {"scratchMemorySize", p.scratchMemorySize},
              {"stressAssignmentStrategy", p.stressAssignmentStrategy},
              {"memStride", p.memStride},
              {"bankConflictLanes", p.bankConflictLanes},
              {"bankConflictPct", p.bankConflictPct},
              {"bankConflictIterations", p.bankConflictIterations},
              {"bankConflictPattern", p.bankConflictPattern},
              {"shufflePct", p.shufflePct},
              {"barrierPct", p.barrierPct},
              {"spinBound", p.spinBound},
              {"launchTimeoutMs", p.launchTimeoutMs},
              {"launchesPerBatch", p.launchesPerBatch},
              {"seed", p.seed}};
}

ptxgen::GenOptions kernelShape(const StressParams& p, const std::string& arch) {
  ptxgen::GenOptions g;
  g.arch = arch;
  g.groupsPerBlock = p.groupsPerBlock;
  g.stressWarpsPerBlock = p.stressWarpsPerBlock;
  g.bankConflictLanes = p.bankConflictLanes;
  return g;
}

uint64_t cellStride(const ptxgen::Kernel& kernel, const StressParams& p) {
  const uint64_t cell = kernel.globals.empty() ? 4 : static_cast<uint64_t>(kernel.globals[0].cellBytes);
  return std::max<uint64_t>(cell, (static_cast<uint64_t>(p.memStride) + cell - 1) / cell * cell);
}

uint64_t regionBytes(const ptxgen::Kernel& kernel, uint64_t instances, uint64_t stride) {
  const uint64_t granule = kernel.surfaceMap ? ptxgen::surf::kRegionAlign : 4096;
  return std::max<uint64_t>(1, (instances * stride + granule - 1) / granule) * granule;
}

std::vector<uint32_t> surfaceMap(const std::vector<uint32_t>& layout, uint64_t instances, uint64_t stride,
                                 std::string& error) {
  const uint64_t words = layout.size();
  std::vector<uint32_t> elementAt(words);
  std::vector<bool> seen(words, false);
  for (uint64_t w = 0; w < words; ++w) {
    const uint64_t e = static_cast<uint64_t>(layout[w]) - 1;  // 0 (never written) wraps to a huge index
    if (e >= words || seen[e]) {
      error = "the surface array's memory layout is not a bijection onto its region: word " + std::to_string(w) +
              (e >= words ? " holds no array element" : " repeats element " + std::to_string(e));
      return {};
    }
    seen[e] = true;
    elementAt[w] = static_cast<uint32_t>(e);
  }
  if (instances * stride > words * 4) {
    error = "the surface array covers " + std::to_string(words * 4) + " bytes, fewer than the " +
            std::to_string(instances * stride) + " of the cells";
    return {};
  }
  const auto width = static_cast<uint32_t>(ptxgen::surf::kArrayWidth);
  std::vector<uint32_t> map(2 * instances);
  for (uint64_t c = 0; c < instances; ++c) {
    const uint32_t e = elementAt[c * stride / 4];
    map[2 * c] = (e % width) * 4;  // sust/suld .b address x in bytes
    map[2 * c + 1] = e / width;
  }
  return map;
}

std::vector<std::vector<int64_t>> candidateValues(const litmus::Test& test, const ptxgen::Kernel& kernel,
                                                  const std::vector<std::string>& extraStates) {
  std::set<int64_t> common{0, 1};
  for (const auto& d : test.locations) common.insert(d.init);
  for (const auto& r : test.regInits)
    if (!r.addressOf) common.insert(r.value);
  collectImms(test.condition.prop, common);
  for (const auto& th : test.threads)
    for (const auto& st : th.code)
      if (st.instr) {
        auto fam = ptx::opInfo(st.instr->op).family;
        if (fam != ptx::OpFamily::Write && fam != ptx::OpFamily::Rmw && fam != ptx::OpFamily::Local) continue;
        for (const auto& op : st.instr->operands)
          if (op.kind == litmus::Operand::Kind::Imm) common.insert(op.imm);
      }
  // Values named in extra states ("0:r1=2; x=3;"), per term label.
  std::map<std::string, std::set<int64_t>> perLabel;
  for (const auto& key : extraStates)
    for (const auto& [label, value] : outcome::parseStateKey(key)) perLabel[label].insert(value);
  std::vector<std::vector<int64_t>> out;
  for (const auto& term : kernel.terms) {
    std::set<int64_t> vals = common;
    for (int64_t v : perLabel[term.label]) vals.insert(v);
    std::vector<int64_t> v;
    for (int64_t x : vals) {
      if (term.widthBits == 32) x = static_cast<int64_t>(static_cast<uint32_t>(x));
      if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
    }
    if (v.size() > static_cast<size_t>(ptxgen::cfg::kMaxCandidates)) v.resize(ptxgen::cfg::kMaxCandidates);
    out.push_back(v);
  }
  return out;
}

uint64_t bucketCount(const std::vector<std::vector<int64_t>>& candidates) {
  uint64_t n = 1;
  for (const auto& c : candidates) n *= std::max<uint64_t>(1, c.size());
  return n + 2;
}

std::vector<uint64_t> buildConfig(const ptxgen::Kernel& kernel, const StressParams& p, uint64_t columns,
                                  const std::vector<std::vector<int64_t>>& candidates, std::mt19937_64& rng) {
  namespace cfg = ptxgen::cfg;
  std::vector<uint64_t> c(cfg::kWords, 0);
  const uint64_t n = columns * static_cast<uint64_t>(kernel.slotsPerCta);
  auto pct = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };
  c[cfg::kColumns] = columns;
  c[cfg::kInstances] = n;
  c[cfg::kMemIters] = pct(p.memStressPct) ? p.memStressIterations : 0;
  c[cfg::kMemPattern] = static_cast<uint64_t>(p.memStressPattern & 3);
  c[cfg::kPreIters] = pct(p.preStressPct) ? p.preStressIterations : 0;
  c[cfg::kPrePattern] = static_cast<uint64_t>(p.preStressPattern & 3);
  c[cfg::kTargetLines] = static_cast<uint64_t>(p.stressTargetLines);
  c[cfg::kLineWords] = static_cast<uint64_t>(p.stressLineSize);
  c[cfg::kAssign] = static_cast<uint64_t>(p.stressAssignmentStrategy);
  c[cfg::kSpinBound] = p.spinBound;
  c[cfg::kStartBarrier] = pct(p.barrierPct) ? 1 : 0;
  // (no PRNG draw without bank-conflict lanes: a seed keeps its shuffles when the feature is off)
  c[cfg::kBankIters] =
      kernel.bankConflictLanes > 0 && pct(p.bankConflictPct) ? static_cast<uint64_t>(p.bankConflictIterations) : 0;
  c[cfg::kBankPattern] = static_cast<uint64_t>(p.bankConflictPattern & 3);
  const uint64_t stride = cellStride(kernel, p);
  c[cfg::kStride] = stride;
  c[cfg::kOtherBucket] = bucketCount(candidates) - 2;
  const bool shuffle = pct(p.shufflePct);
  for (int k = 0; k < kernel.roles && k < cfg::kMaxRoles; ++k) {
    c[cfg::kRolePerm + 2 * k] = shuffle ? coprime(columns, rng) : 1;
    c[cfg::kRolePerm + 2 * k + 1] = shuffle ? rng() % columns : static_cast<uint64_t>(k) % columns;
    c[cfg::kSlotOff + k] = shuffle ? rng() % kernel.slotsPerCta : 0;
  }
  const uint64_t region = regionBytes(kernel, n, stride);
  for (size_t l = 0; l < kernel.globals.size(); ++l) {
    c[cfg::kLocPerm + 3 * l] = shuffle ? coprime(n, rng) : 1;
    c[cfg::kLocPerm + 3 * l + 1] = shuffle ? rng() % n : 0;
    c[cfg::kLocPerm + 3 * l + 2] = l * region;
  }
  const uint64_t lines = std::max<uint64_t>(1, static_cast<uint64_t>(p.scratchMemorySize / p.stressLineSize));
  for (int i = 0; i < 16; ++i) c[cfg::kLines + i] = (rng() % lines) * static_cast<uint64_t>(p.stressLineSize);
  for (size_t j = 0; j < candidates.size() && j < static_cast<size_t>(cfg::kMaxTerms); ++j) {
    c[cfg::kTermCount + j] = candidates[j].size();
    for (size_t v = 0; v < candidates[j].size() && v < static_cast<size_t>(cfg::kMaxCandidates); ++v)
      c[cfg::kTermValues + cfg::kMaxCandidates * j + v] = static_cast<uint64_t>(candidates[j][v]);
  }
  return c;
}

uint64_t Histogram::total() const {
  uint64_t t = other + timedOut;
  for (const auto& [k, v] : states) t += v;
  return t;
}

std::string stateKey(const ptxgen::Kernel& kernel, const std::vector<int64_t>& values) {
  std::vector<std::string> labels;
  for (const auto& t : kernel.terms) labels.push_back(t.label);
  return outcome::stateKey(labels, values);
}

Histogram decodeHistogram(const ptxgen::Kernel& kernel, const std::vector<std::vector<int64_t>>& candidates,
                          const std::vector<uint64_t>& buckets, const std::vector<uint64_t>& samples) {
  Histogram h;
  const uint64_t states = bucketCount(candidates) - 2;
  for (uint64_t idx = 0; idx < states && idx < buckets.size(); ++idx) {
    if (buckets[idx] == 0) continue;
    std::vector<int64_t> vals(candidates.size());
    uint64_t rest = idx;
    for (size_t j = candidates.size(); j-- > 0;) {
      uint64_t r = std::max<uint64_t>(1, candidates[j].size());
      vals[j] = candidates[j].empty() ? 0 : candidates[j][rest % r];
      rest /= r;
    }
    h.states[stateKey(kernel, vals)] += buckets[idx];
  }
  if (buckets.size() > states) h.other = buckets[states];
  if (buckets.size() > states + 1) h.timedOut = buckets[states + 1];
  if (!samples.empty()) {
    const size_t rec = std::max<size_t>(1, kernel.terms.size());
    const uint64_t n = std::min<uint64_t>(samples[0], ptxgen::cfg::kSampleCap);
    for (uint64_t s = 0; s < n; ++s) {
      std::vector<int64_t> vals;
      for (size_t j = 0; j < kernel.terms.size(); ++j) {
        size_t at = 1 + s * rec + j;
        vals.push_back(at < samples.size() ? static_cast<int64_t>(samples[at]) : 0);
      }
      std::string key = stateKey(kernel, vals);
      if (std::find(h.otherSamples.begin(), h.otherSamples.end(), key) == h.otherSamples.end())
        h.otherSamples.push_back(key);
    }
  }
  return h;
}

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

RunResult runKernel(const ptxgen::Kernel&, const StressParams&, const std::vector<std::vector<int64_t>>&) {
  RunResult r;
  r.status = RunResult::Status::Skipped;
  r.reason = "ptxmm was built without the CUDA driver API";
  return r;
}

#else

// The driver API is loaded with dlopen (never linked), so that ptxmm starts on machines with the
// CUDA toolkit but no driver; the versioned entry points (cuMemAlloc -> cuMemAlloc_v2) come from
// cuda.h's macros through the two-level stringification.
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
#define PTXMM_STR(x) #x
#define PTXMM_XSTR(x) PTXMM_STR(x)

namespace {

struct CuApi {
  bool ok = false;
  std::string error;
#define PTXMM_DECL(f) decltype(&f) p_##f = nullptr;
  PTXMM_CU_FUNCS(PTXMM_DECL)
#undef PTXMM_DECL
};

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
    x.ok = true;
    return x;
  }();
  return a;
}

}  // namespace

namespace {

std::string cuErr(CUresult e) {
  const char* name = nullptr;
  const char* msg = nullptr;
  api().p_cuGetErrorName(e, &name);
  api().p_cuGetErrorString(e, &msg);
  return std::string(name ? name : "CUDA_ERROR") + ": " + (msg ? msg : "?");
}

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(CUresult e, const char* what) {
  if (e != CUDA_SUCCESS) throw CudaError(std::string(what) + ": " + cuErr(e));
}

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
  void allocateExportable(size_t bytes, CUdevice dev) {
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

  /// Create the objects of every binding over `mem` (global location l at l * region) and the
  /// surface map of `instances` cells `stride` apart; throws CudaError naming the location.
  void bind(const ptxgen::Kernel& kernel, CUdeviceptr mem, uint64_t region, uint64_t instances, uint64_t stride,
            CUdevice dev) {
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

  /// Destroy everything (errors ignored: also used after a failed launch).
  void release() {
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
};

}  // namespace

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

RunResult runKernel(const ptxgen::Kernel& kernel, const StressParams& params,
                    const std::vector<std::vector<int64_t>>& candidates) {
  RunResult r;
  DeviceInfo info = queryDevice();
  if (!info.available) {
    r.status = RunResult::Status::Skipped;
    r.reason = info.error;
    return r;
  }
  const int needSm = kernel.arch == "sm_100a" ? 100 : 90;
  const int haveSm = info.smMajor * 10 + info.smMinor;
  if (haveSm != needSm) {  // "a" targets run only on exactly that architecture
    r.status = RunResult::Status::Skipped;
    r.reason = "test needs " + kernel.arch + " but the device is sm_" + std::to_string(haveSm);
    return r;
  }
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  CUmodule mod = nullptr;
  std::vector<CUdeviceptr> allocs;
  ProxyObjects proxies;
  bool resetNeeded = false;
  try {
    check(api().p_cuDeviceGet(&dev, 0), "cuDeviceGet");
    check(api().p_cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(api().p_cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    char errLog[8192] = {};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {errLog, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof errLog))};
    CUresult le = api().p_cuModuleLoadDataEx(&mod, kernel.ptx.c_str(), 2, opts, vals);
    if (le != CUDA_SUCCESS) throw CudaError("cuModuleLoadDataEx: " + cuErr(le) + "\n" + errLog);
    CUfunction fn = nullptr, initFn = nullptr;
    check(api().p_cuModuleGetFunction(&fn, mod, kernel.entry.c_str()), "cuModuleGetFunction");
    check(api().p_cuModuleGetFunction(&initFn, mod, kernel.initEntry.c_str()), "api().p_cuModuleGetFunction(init)");
    // Columns: fill the GPU with resident clusters.
    uint64_t columns = params.columns;
    const unsigned clusterDim = kernel.clustered ? static_cast<unsigned>(kernel.clusterDim) : 1;
    if (columns == 0) {
      uint64_t residentClusters = 0;
      if (kernel.clustered) {
        CUlaunchConfig lc{};
        lc.gridDimX = clusterDim * 64;
        lc.gridDimY = lc.gridDimZ = 1;
        lc.blockDimX = static_cast<unsigned>(kernel.blockDim);
        lc.blockDimY = lc.blockDimZ = 1;
        CUlaunchAttribute attr{};
        attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr.value.clusterDim.x = clusterDim;
        attr.value.clusterDim.y = attr.value.clusterDim.z = 1;
        lc.attrs = &attr;
        lc.numAttrs = 1;
        int n = 0;
        check(api().p_cuOccupancyMaxActiveClusters(&n, fn, &lc), "cuOccupancyMaxActiveClusters");
        residentClusters = static_cast<uint64_t>(std::max(1, n));
      } else {
        int perSm = 0;
        check(api().p_cuOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, fn, kernel.blockDim, 0),
              "cuOccupancyMaxActiveBlocksPerMultiprocessor");
        residentClusters = static_cast<uint64_t>(std::max(1, perSm)) * static_cast<uint64_t>(info.smCount);
      }
      columns = std::max<uint64_t>(1, residentClusters / static_cast<uint64_t>(kernel.roles));
    }
    r.columns = columns;
    const uint64_t n = columns * static_cast<uint64_t>(kernel.slotsPerCta);
    const uint64_t gridClusters = columns * static_cast<uint64_t>(kernel.roles);
    const unsigned gridX = static_cast<unsigned>(gridClusters * clusterDim);
    // Buffers.
    const uint64_t stride = cellStride(kernel, params);
    const uint64_t region = regionBytes(kernel, n, stride);
    const uint64_t buckets = bucketCount(candidates);
    const size_t rec = std::max<size_t>(1, kernel.terms.size());
    auto alloc = [&](size_t bytes) {
      CUdeviceptr p = 0;
      check(api().p_cuMemAlloc(&p, std::max<size_t>(bytes, 16)), "cuMemAlloc");
      allocs.push_back(p);
      return p;
    };
    const int batch = params.launchesPerBatch;
    const uint64_t memBytes = std::max<uint64_t>(1, kernel.globals.size()) * region;
    CUdeviceptr mem = 0;
    if (kernel.surfaceMap) {
      proxies.allocateExportable(memBytes, dev);
      mem = proxies.base;
    } else {
      mem = alloc(memBytes);
    }
    proxies.bind(kernel, mem, region, n, stride, dev);
    CUdeviceptr surfMap = 0;
    if (kernel.surfaceMap) {
      surfMap = alloc(proxies.map.size() * 4);
      check(api().p_cuMemcpyHtoD(surfMap, proxies.map.data(), proxies.map.size() * 4), "cuMemcpyHtoD (surface map)");
    }
    std::vector<CUdeviceptr> cfgs;
    for (int b = 0; b < batch; ++b) cfgs.push_back(alloc(ptxgen::cfg::kWords * 8));
    CUdeviceptr res = alloc(n * static_cast<uint64_t>(kernel.resultWords) * 8);
    CUdeviceptr ctr = alloc(2 * n * 4);
    CUdeviceptr hist = alloc(buckets * 8);
    CUdeviceptr smp = alloc((1 + ptxgen::cfg::kSampleCap * rec) * 8);
    CUdeviceptr scr = alloc(static_cast<size_t>(params.scratchMemorySize) * 4);
    check(api().p_cuMemsetD8(hist, 0, buckets * 8), "cuMemsetD8");
    check(api().p_cuMemsetD8(smp, 0, (1 + ptxgen::cfg::kSampleCap * rec) * 8), "cuMemsetD8");
    check(api().p_cuMemsetD8(scr, 0, static_cast<size_t>(params.scratchMemorySize) * 4), "cuMemsetD8");
    CUstream stream = nullptr;
    check(api().p_cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    std::mt19937_64 rng(params.seed);
    std::vector<std::vector<uint64_t>> hostCfg(static_cast<size_t>(batch));
    const uint64_t launchesWanted = std::max<uint64_t>(1, (params.iterations + n - 1) / n);
    auto t0 = std::chrono::steady_clock::now();
    while (r.launches < launchesWanted) {
      const int thisBatch =
          static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(batch), launchesWanted - r.launches));
      for (int b = 0; b < thisBatch; ++b) {
        hostCfg[b] = buildConfig(kernel, params, columns, candidates, rng);
        check(api().p_cuMemcpyHtoDAsync(cfgs[b], hostCfg[b].data(), hostCfg[b].size() * 8, stream),
              "cuMemcpyHtoDAsync");
      }
      for (int b = 0; b < thisBatch; ++b) {
        check(api().p_cuMemsetD32Async(ctr, 0, 2 * n, stream), "cuMemsetD32Async");
        check(api().p_cuMemsetD32Async(res, 0, n * static_cast<uint64_t>(kernel.resultWords) * 2, stream),
              "cuMemsetD32Async");
        CUdeviceptr initArgs0 = mem, initArgs1 = cfgs[b];
        void* initArgs[] = {&initArgs0, &initArgs1};
        unsigned initGrid = static_cast<unsigned>(std::min<uint64_t>(4096, (n + 255) / 256));
        check(api().p_cuLaunchKernel(initFn, initGrid, 1, 1, 256, 1, 1, 0, stream, initArgs, nullptr),
              "api().p_cuLaunchKernel(init)");
        // Fixed parameters, then the surface/texture handles, then the surface map.
        std::vector<uint64_t> argValues = {mem, cfgs[b], res, ctr, hist, smp, scr};
        argValues.insert(argValues.end(), proxies.params.begin(), proxies.params.end());
        if (kernel.surfaceMap) argValues.push_back(surfMap);
        std::vector<void*> args;
        for (auto& v : argValues) args.push_back(&v);
        CUlaunchConfig lc{};
        lc.gridDimX = gridX;
        lc.gridDimY = lc.gridDimZ = 1;
        lc.blockDimX = static_cast<unsigned>(kernel.blockDim);
        lc.blockDimY = lc.blockDimZ = 1;
        lc.hStream = stream;
        CUlaunchAttribute attr{};
        if (kernel.clustered) {
          attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
          attr.value.clusterDim.x = clusterDim;
          attr.value.clusterDim.y = attr.value.clusterDim.z = 1;
          lc.attrs = &attr;
          lc.numAttrs = 1;
        }
        check(api().p_cuLaunchKernelEx(&lc, fn, args.data(), nullptr), "cuLaunchKernelEx");
      }
      // Watchdog: poll until the batch is done or the wall-clock bound passes.
      auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(params.launchTimeoutMs);
      CUresult q;
      while ((q = api().p_cuStreamQuery(stream)) == CUDA_ERROR_NOT_READY) {
        if (std::chrono::steady_clock::now() > deadline) {
          resetNeeded = true;
          throw CudaError("watchdog: a batch of " + std::to_string(thisBatch) + " launch(es) did not finish within " +
                          std::to_string(params.launchTimeoutMs) + " ms");
        }
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
      check(q, "kernel execution");
      if (gProgressFd >= 0 && write(gProgressFd, ".", 1) < 0) gProgressFd = -1;
      r.launches += static_cast<uint64_t>(thisBatch);
      r.instances += static_cast<uint64_t>(thisBatch) * n;
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<uint64_t> hb(buckets), sb(1 + ptxgen::cfg::kSampleCap * rec);
    check(api().p_cuMemcpyDtoH(hb.data(), hist, hb.size() * 8), "cuMemcpyDtoH");
    check(api().p_cuMemcpyDtoH(sb.data(), smp, sb.size() * 8), "cuMemcpyDtoH");
    r.histogram = decodeHistogram(kernel, candidates, hb, sb);
    api().p_cuStreamDestroy(stream);
    proxies.release();
    for (auto p : allocs) api().p_cuMemFree(p);
    api().p_cuModuleUnload(mod);
    api().p_cuDevicePrimaryCtxRelease(dev);
    r.status = RunResult::Status::Ok;
  } catch (const CudaError& e) {
    r.status = resetNeeded ? RunResult::Status::TimedOut : RunResult::Status::Error;
    r.reason = e.what();
    // Tear the context down so that a faulted kernel cannot poison the next test. A hung one is
    // left alone: resetting may block behind it (runKernelIsolated kills the process instead).
    if (ctx != nullptr && !resetNeeded) {
      proxies.release();
      api().p_cuDevicePrimaryCtxRelease(dev);
      api().p_cuDevicePrimaryCtxReset(dev);
    }
  }
  return r;
}

#endif

json toJson(const RunResult& r) {
  json states = json::object();
  for (const auto& [k, v] : r.histogram.states) states[k] = v;
  return json{{"status", static_cast<int>(r.status)},
              {"reason", r.reason},
              {"states", states},
              {"other", r.histogram.other},
              {"timedOut", r.histogram.timedOut},
              {"samples", r.histogram.otherSamples},
              {"instances", r.instances},
              {"launches", r.launches},
              {"seconds", r.seconds},
              {"columns", r.columns}};
}

RunResult runResultFromJson(const json& j) {
  RunResult r;
  r.status = static_cast<RunResult::Status>(j.at("status").get<int>());
  r.reason = j.at("reason").get<std::string>();
  for (const auto& [k, v] : j.at("states").items()) r.histogram.states[k] = v.get<uint64_t>();
  r.histogram.other = j.at("other").get<uint64_t>();
  r.histogram.timedOut = j.at("timedOut").get<uint64_t>();
  r.histogram.otherSamples = j.at("samples").get<std::vector<std::string>>();
  r.instances = j.at("instances").get<uint64_t>();
  r.launches = j.at("launches").get<uint64_t>();
  r.seconds = j.at("seconds").get<double>();
  r.columns = j.at("columns").get<uint64_t>();
  return r;
}

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

RunResult runKernelIsolated(const ptxgen::Kernel& kernel, const StressParams& params,
                            const std::vector<std::vector<int64_t>>& candidates, DeviceInfo& device) {
  int fds[2];
  if (pipe(fds) != 0) {
    device = queryDevice();
    return runKernel(kernel, params, candidates);
  }
  fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    device = queryDevice();
    return runKernel(kernel, params, candidates);
  }
  if (pid == 0) {  // child: run, send {"device","result"} as one JSON text, exit without cleanup
    close(fds[0]);
    gProgressFd = fds[1];
    std::string msg;
    try {
      DeviceInfo d = queryDevice();
      RunResult r = runKernel(kernel, params, candidates);
      msg = json{{"device", d.toJson()}, {"result", toJson(r)}}.dump(-1, ' ', false,
                                                                     nlohmann::json::error_handler_t::replace);
    } catch (const std::exception& e) {
      RunResult r;
      r.reason = e.what();
      msg = json{{"device", DeviceInfo{}.toJson()}, {"result", toJson(r)}}.dump(
          -1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    msg += "\n";
    size_t off = 0;
    while (off < msg.size()) {
      ssize_t w = write(fds[1], msg.data() + off, msg.size() - off);
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  // Every batch must finish within launchTimeoutMs (heartbeat '.' per batch); module load and the
  // first batch get 30 s more.
  const auto bound = std::chrono::milliseconds(static_cast<int64_t>(params.launchTimeoutMs) + 30000);
  auto deadline = std::chrono::steady_clock::now() + bound;
  std::string data;
  bool complete = false;
  while (!complete) {
    auto now = std::chrono::steady_clock::now();
    if (now > deadline) break;
    struct pollfd pfd {
      fds[0], POLLIN, 0
    };
    int wait = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count());
    if (poll(&pfd, 1, std::min(wait, 1000)) <= 0) continue;
    char buf[65536];
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
    deadline = std::chrono::steady_clock::now() + bound;
    complete = !data.empty() && data.back() == '\n';
  }
  data.erase(0, data.find_first_not_of('.'));
  close(fds[0]);
  // The child has reported (or overrun): kill it so that a hung teardown cannot block us.
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == 0) {
    if (!complete) {
      kill(pid, SIGKILL);
    } else {
      auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (waitpid(pid, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      kill(pid, SIGKILL);
    }
    waitpid(pid, &status, 0);
  }
  RunResult r;
  if (!complete) {
    r.status = RunResult::Status::TimedOut;
    r.reason = "watchdog: the test process did not report within its wall-clock bound and was killed";
    return r;
  }
  try {
    json j = json::parse(data);
    device = deviceInfoFromJson(j.at("device"));
    return runResultFromJson(j.at("result"));
  } catch (const std::exception& e) {
    r.status = RunResult::Status::Error;
    r.reason = std::string("bad report from the test process: ") + e.what();
    return r;
  }
}

}  // namespace ptxmm::runner
