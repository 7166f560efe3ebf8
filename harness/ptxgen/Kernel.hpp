// The stress-kernel generator's interface: options, the generated module and its metadata, and the
// layout of the configuration buffer shared with the runner (docs/hardware/README.md describes the
// kernel structure).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "litmus/Ast.hpp"
#include "ptx/Attributes.hpp"

namespace ptxmm::ptxgen {

/// Compile-time shape of the stress kernel (what is baked into the PTX text).
struct GenOptions {
  std::string arch = "sm_90a";  ///< "sm_90a" or "sm_100a"
  int groupsPerBlock = 4;       ///< testing warp groups per CTA (each group hosts 32/laneShare instances)
  int stressWarpsPerBlock = 2;  ///< extra warps per CTA that only do memory stress
  int sharedCellBytes = 16;     ///< size of one shared-memory location cell (16: fits .b128 and bulk copies)
  int globalCellBytes = 0;      ///< size of one global location cell (0: derived from the widest access, >= 4)
  /// Bank-conflict stress lanes (0..32, 0 = off): lanes 0..N-1 of every warp that runs no litmus thread
  /// (the stress warps) hammer shared-memory rows in the banks of the test's shared locations instead
  /// of running the memory-stress loop. Needs a shared location in the test (else nothing is generated).
  int bankConflictLanes = 0;
  /// A thread that copies through a tensor map acquires the maps ptxmm_init wrote at its start (off:
  /// a diagnostic of whether the kernel boundary alone makes them visible to the tensormap proxy).
  bool mapAcquireAtStart = true;
  /// Thread skew (0 = off, no code): after the start barrier every litmus thread sleeps a pseudo-random
  /// 0..N ns (`nanosleep`), drawn per warp (per warpgroup in wgmma kernels, so .aligned instructions stay
  /// converged), litmus thread and launch, so that an instance's threads start at varying distances.
  int threadSkewNs = 0;
};

/// Where the value of an observed term comes from on the device.
enum class TermSource : uint8_t { Register, GlobalLoc, SharedLoc };

/// One term of the final state (a register or a location), in canonical state-key order
/// (outcome::observedTerms).
struct ObservedTerm {
  std::string label;  ///< "0:r1" or "x" or "s@cta1", as printed in state keys (litmus::printTerm)
  litmus::Term term;  ///< the litmus term
  TermSource source = TermSource::Register;
  int resultIndex = -1;  ///< Register / SharedLoc: word in the instance's result record
  int globalLoc = -1;    ///< GlobalLoc: index into Kernel::globals
  int widthBits = 32;    ///< values are zero-extended from this width
};

/// A global location of the test: one region of the memory buffer holding one cell per instance.
struct GlobalLoc {
  std::string name;
  int64_t init = 0;
  int cellBytes = 4;
};

/// A global location accessed through the surface or texture proxy (`s @ surface aliases x` read or
/// written by sust/suld, `t @ texture aliases x` read by tld). The runner creates the object over the
/// location's own region of the memory buffer, so that the aliasing is physical, and passes its handle
/// as the kernel parameter `param` (after the fixed parameters, in `Kernel::bindings` order):
///   Surface: a 2D CUDA array of 32-bit elements (surf::kArrayWidth wide, a multiple of
///            surf::kRowAlign rows) mapped over the region through CUDA external memory; the
///            kernel addresses cell c at the coordinates surface-map[c] (`sust.b.2d` / `suld.b.2d`);
///   Texture: a linear-memory texture object over the region; cell c is element c*stride/4 (`tex.1d`).
struct ProxyBinding {
  ptx::Proxy proxy = ptx::Proxy::Surface;  ///< Surface or Texture
  int globalLoc = -1;                      ///< index into Kernel::globals
  std::string param;                       ///< kernel parameter holding the object's handle (.u64)
};

/// Layout of the surface arrays shared by the generator and the runner.
namespace surf {
inline constexpr int kArrayWidth = 1024;  ///< 32-bit elements per row (4 KiB rows)
/// Rows are a multiple of this: the block-linear footprint is then exactly the region (checked on sm_90).
inline constexpr int kRowAlign = 256;
inline constexpr uint64_t kRegionAlign = uint64_t{kArrayWidth} * kRowAlign * 4;  ///< region size granule (1 MiB)
inline constexpr const char* kMapParam = "p_surmap";  ///< u32 pairs {x in bytes, y} per cell index
}  // namespace surf

/// A tensor map of the test: a global location that a `cp.async.bulk.tensor` names as its tensor map
/// (docs/hardware/README.md "Tensor maps"). The litmus abstraction (docs/lowering.md "Tensor maps") gives
/// the location a descriptor version v; on the device each instance's cell of the location (128 bytes)
/// holds a real CUtensorMap that the runner encodes with cuTensorMapEncodeTiled, and version v is the
/// tensor that map locates: one 16-byte box of .u32 elements whose first 8 bytes hold v (then zeros), so
/// the copy's destination tells which descriptor the TMA used. A map that a tensor store or reduction
/// writes through locates instead the first 16 bytes of its tensor location's cell (tensorLoc). Every version that the
/// test installs
/// (`tensormap.replace.tile.global_address [map], v`, `st [map], v`) has its own encoded map and box per
/// cell, in the tensor buffer (kernel parameter tmap::kParam, layout in namespace tmap).
struct TensorMapSpec {
  int globalLoc = -1;             ///< index into Kernel::globals of the location holding the map
  int rank = 1;                   ///< 1 or 2: the `.dim` of the copies through it (one box either way)
  std::vector<int64_t> versions;  ///< the descriptor versions: [0] the initial value, then those installed
  int firstSlot = 0;              ///< the record slot of versions[0] (versions[i] is slot firstSlot + i)
  /// Kernel::globals index of the map's tensor `<map>_tensor` when a tensor store or reduction writes
  /// through the map (docs/lowering.md "Tensor maps"): its maps then locate that location's cell of the
  /// same index (the runner gives both locations one permutation), and versions is {the initial value}.
  int tensorLoc = -1;
  /// Shared locations that `tensormap.cp_fenceproxy [map], [S], 128` copies into the map (docs/hardware/README.md
  /// "Tensor maps"): each CTA's cell of S holds a CUtensorMap of this map too, the one of S's initial value
  /// (a version of `versions`), copied from the tensor buffer by the kernel's prologue; tensormap.replace
  /// .global_address [S], v installs version v in it, as in the map location itself.
  std::vector<std::string> sharedSources;

  /// The record slot of version `v` (-1 if the test never installs it).
  [[nodiscard]] int slotOf(int64_t v) const {
    for (size_t i = 0; i < versions.size(); ++i)
      if (versions[i] == v) return firstSlot + static_cast<int>(i);
    return -1;
  }
};

/// Layout of the tensor buffer shared by the generator and the runner: one record per cell index c
/// (the cell of a location an instance uses, 0..N-1), at c * recordBytes(slots): first the `slots`
/// encoded maps (128 bytes each; a map of slot s points at the box of slot s of the same record), then
/// the `slots` boxes (16 bytes each). The runner writes the buffer once per run; ptxmm_init copies the
/// map of versions[0] into the map location's cell before every launch, and `st [map], v` copies the
/// map of version v (a 128-byte descriptor written by generic stores, as the host or an earlier kernel
/// writes one).
namespace tmap {
inline constexpr int kMapBytes = 128;  ///< sizeof(CUtensorMap) (PTX ISA 9.2 §5.5.8: a 128-byte opaque object)
inline constexpr int kMapAlign = 64;   ///< a CUtensorMap's alignment (cuTensorMapEncodeTiled)
inline constexpr int kBoxBytes = 16;   ///< one box: the complete-tx count of a litmus tensor copy
inline constexpr int kElemBytes = 4;   ///< .u32 elements (CU_TENSOR_MAP_DATA_TYPE_UINT32)
inline constexpr const char* kParam = "p_tmap";
/// Bytes of one cell's record, a multiple of 128 so that every map stays 64-byte aligned.
[[nodiscard]] constexpr uint64_t recordBytes(int slots) {
  const uint64_t raw = static_cast<uint64_t>(slots) * (kMapBytes + kBoxBytes);
  return (raw + 127) / 128 * 128;
}
[[nodiscard]] constexpr uint64_t mapOffset(int slot) { return static_cast<uint64_t>(slot) * kMapBytes; }
[[nodiscard]] constexpr uint64_t boxOffset(int slots, int slot) {
  return static_cast<uint64_t>(slots) * kMapBytes + static_cast<uint64_t>(slot) * kBoxBytes;
}
}  // namespace tmap

/// A generated PTX module and what the runner needs to launch it.
struct Kernel {
  std::string ptx;                       ///< the complete module text
  std::string arch;                      ///< target, e.g. "sm_90a"
  int ptxVersion = 80;                   ///< .version as major*10+minor
  std::string entry = "ptxmm_test";      ///< the stress kernel
  std::string initEntry = "ptxmm_init";  ///< writes the initial values of global locations
  int blockDim = 0;                      ///< threads per CTA
  int clusterDim = 1;                    ///< CTAs per cluster (launch attribute when `clustered`)
  bool clustered = false;                ///< launched with an explicit cluster dimension
  int roles = 1;                         ///< litmus clusters = GPU clusters per instance column
  int slotsPerCta = 0;                   ///< instances hosted by one GPU cluster
  int reporters = 0;                     ///< litmus threads per instance (done-counter target)
  int resultWords = 1;                   ///< u64 words per instance in the result buffer (last = timeout flag)
  int sharedBytes = 0;                   ///< static shared memory per CTA
  /// Kernel threads that run one litmus thread: 1, or 128 in a warpgroup kernel (a test with wgmma: the
  /// warpgroup's thread 0 performs the writes, copies and arrivals and reports the registers).
  int litmusThreadWidth = 1;
  std::vector<GlobalLoc> globals;      ///< global locations, region order
  std::vector<ObservedTerm> terms;     ///< state-key terms, canonical order
  std::vector<ProxyBinding> bindings;  ///< surface/texture objects, kernel parameter order
  bool surfaceMap = false;             ///< a surface binding exists: parameter surf::kMapParam follows them
  int bankConflictLanes = 0;           ///< bank-conflict lanes generated per stress warp (0: none)
  int bankConflictOffset = -1;         ///< byte offset of the bank-conflict rows in shared memory (multiple of 128)
  std::vector<std::string> notes;      ///< approximations made (e.g. aliases not mapped)
  /// Non-empty: the module assembles but must not be launched, for this reason (the runner skips it with
  /// it): tcgen05 tests, wgmma with scale-d 1, and what a warpgroup kernel does not translate (Generator.cpp).
  std::string notRunnable;

  // Programmatic dependent launch (litmus/README.md "Warps, lanes and grids"; docs/hardware/README.md
  // "Programmatic dependent launch"): a test with threads in both `grid 0` and `grid 1` has a second stress
  // kernel, dependentEntry, that runs the roles of grid 1 (roles primaryRoles..roles-1) and is launched right
  // after `entry` (the roles of grid 0) in the same stream with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION.
  // Both kernels have the same shape (blockDim, clusterDim, one instance per CTA) and parameters.
  std::string dependentEntry;  ///< empty: one kernel (every role in `entry`)
  int primaryRoles = 1;        ///< roles run by `entry` (= roles with one kernel)
  /// u32 counters per instance in the counter buffer: the start counter of `entry`'s threads, the done
  /// counter and, with a dependent kernel, the start counter of its threads (at [2N + instance]).
  [[nodiscard]] int counterWords() const { return dependentEntry.empty() ? 2 : 3; }

  // Tensor maps: parameter tmap::kParam of both entries follows the others when there are any.
  std::vector<TensorMapSpec> tensorMaps;  ///< the maps the runner encodes (cp.async.bulk.tensor)
  int tensorSlots = 0;                    ///< maps (and boxes) per record of the tensor buffer (namespace tmap)
};

/// The shared-memory operand tiles of wgmma.mma_async.m64n8k16.f16 in a warpgroup kernel (emit/Wgmma.cpp):
/// every shared cell is a tile of kTileBytes; A (64x16) and B (16x8, stored transposed: N rows of K) are
/// K-major without swizzle, made of 8-row x 16-byte core matrices; the core matrix next along K is
/// kLeadingByteOffset further, the one next along M / N kStrideByteOffset further (PTX ISA 9.2
/// §9.7.15.5.1). The litmus word of a location is the first word of its tile: A[0][0..1] and B[0..1][0].
namespace wgmma {
inline constexpr int kTileBytes = 2048;         ///< 64 rows x 16 f16 (A); B uses the first 256 bytes
inline constexpr int kLeadingByteOffset = 128;  ///< LBO: next core matrix along K
inline constexpr int kStrideByteOffset = 256;   ///< SBO: next core matrix along M / N
/// The accumulator element D[0][0] that the litmus register follows is a*b*2^-48 (the operands' low 16 bits
/// read as f16 are a*2^-24 and b*2^-24, exact for 0 <= a, b < 2048): the kernel scales it by 2^48.
inline constexpr const char* kScaleToInt = "0f57800000";    ///< 2^48 as .f32
inline constexpr const char* kScaleFromInt = "0f27800000";  ///< 2^-48 as .f32
inline constexpr int kExactBound = 2048;                    ///< operand values below this are exact
}  // namespace wgmma

/// Layout of the u64 configuration buffer written by the host before each launch.
namespace cfg {
inline constexpr int kColumns = 0;        ///< Q: GPU-cluster columns per role
inline constexpr int kInstances = 1;      ///< N = Q * slotsPerCta
inline constexpr int kMemIters = 2;       ///< memory-stress iterations of stress warps
inline constexpr int kMemPattern = 3;     ///< bit0: first access is a store, bit1: second access is a store
inline constexpr int kPreIters = 4;       ///< pre-stress iterations of testing threads
inline constexpr int kPrePattern = 5;     ///< as kMemPattern
inline constexpr int kTargetLines = 6;    ///< number of stressed scratch lines (1..16)
inline constexpr int kLineWords = 7;      ///< stress line size in 32-bit words
inline constexpr int kAssign = 8;         ///< 0: round-robin lines per warp, 1: chunking per CTA
inline constexpr int kSpinBound = 9;      ///< bound of every spin (start barrier, backward branches)
inline constexpr int kStartBarrier = 10;  ///< 1: align the instance's threads with a spin barrier
inline constexpr int kStride = 11;        ///< bytes between the cells of consecutive instances
inline constexpr int kBankIters = 12;     ///< bank-conflict stress iterations of the bank-conflict lanes
inline constexpr int kBankPattern = 13;   ///< as kMemPattern, for the bank-conflict accesses
inline constexpr int kOtherBucket = 15;   ///< histogram index of "other"; "timed out" is the next one
inline constexpr int kRolePerm = 16;      ///< role k: [16+2k] column multiplier, [17+2k] column offset
inline constexpr int kSlotOff = 32;       ///< role k: slot rotation
inline constexpr int kLocPerm = 40;  ///< global loc l: [40+3l] multiplier, [41+3l] offset, [42+3l] region byte offset
inline constexpr int kLines = 96;    ///< 16 stress line offsets (32-bit words into scratch)
inline constexpr int kTermCount = 112;   ///< term j: number of candidate values
inline constexpr int kTermValues = 128;  ///< term j: candidates at [128 + 16 j + c]
inline constexpr int kMaxRoles = 8;
inline constexpr int kMaxGlobals = 16;
inline constexpr int kMaxTerms = 16;
inline constexpr int kMaxCandidates = 16;
inline constexpr int kWords = 128 + 16 * 16;
inline constexpr int kSampleCap = 64;  ///< raw "other" states kept (samples[0] = count, then records)
}  // namespace cfg

/// Generate the stress kernel module for `test`. Throws DiagnosticError for tests that cannot be run
/// on hardware (with the location of the offending instruction or declaration).
[[nodiscard]] Kernel generate(const litmus::Test& test, const GenOptions& options = {});

/// "sm_100a" if the test uses sm_100-only operations (clusterlaunchcontrol.*), else "sm_90a".
[[nodiscard]] std::string requiredArch(const litmus::Test& test);

/// The PTX spelling of one instruction with every qualifier written out (semantics, scope, state
/// space, type), without operands, e.g. "ld.relaxed.gpu.global.b32". `spaceOverride` replaces a
/// generic state space (the generator derives it from the location operand).
[[nodiscard]] std::string spell(const litmus::Instr& instr, ptx::Space spaceOverride = ptx::Space::Generic);

/// Minimum PTX ISA version (major*10+minor) needed by one instruction, qualifiers included.
[[nodiscard]] int minPtxVersion(const litmus::Instr& instr);

}  // namespace ptxmm::ptxgen
