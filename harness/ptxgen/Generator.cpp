// Litmus test → PTX stress kernel. Structure of the generated module (docs/hardware/README.md):
//   ptxmm_init: writes every global location's initial value into its region (one cell per instance);
//   ptxmm_test: prologue (shared locations and mbarriers initialised, fence.mbarrier_init, CTA/cluster
//   barrier) → role dispatch (litmus thread, or stress) → per-instance start barrier → the litmus
//   thread's code with bounded backward branches → registers to the result record → CTA/cluster
//   barrier → shared final values by their owner → done counter; the last thread of an instance
//   classifies the final state into the histogram (atomicAdd), or into "other" with a raw sample.
// Stress warps run the memory-stress loop, or (lanes below bankConflictLanes) the bank-conflict loop
// on shared-memory rows in the banks of the test's shared cells. Locations accessed through the
// surface / texture proxy are read and written with sust/suld (2D surface array over the location's
// region) and tex.1d (linear texture over it): the objects' handles are kernel parameters. The tensor
// map of a cp.async.bulk.tensor is a CUtensorMap that the runner encodes per cell (Kernel::tensorMaps):
// ptxmm_init copies the initial one into the map location's cell, and each litmus thread that copies
// through a map acquires it in the tensormap proxy before its start barrier (PTX ISA 9.2 §8.9.4: the
// tensormap proxy is not acquired at kernel start).
// Each litmus instruction is written by its family's code in emit/ (emit/Emit.hpp); this file gives it
// the thread's addresses, values and labels (ThreadCode).
// A test with threads in both grids (programmatic dependent launch) gets a second stress kernel of the same
// shape, ptxmm_dependent, running the grid-1 roles (dependent_, emitTest(s, 1); one instance per CTA).
// A test with wgmma gets a warpgroup kernel (wg_): each litmus thread is run by the 128 threads of an aligned
// warpgroup (one instance per warpgroup), its thread 0 alone performing writes, copies and arrivals
// (warpgroupRole) and reporting; every shared cell is a wgmma operand tile (docs/design.md "Warpgroup kernel").
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "litmus/Printer.hpp"
#include "litmus/Target.hpp"
#include "outcome/State.hpp"
#include "ptx/Ops.hpp"
#include "ptxgen/Kernel.hpp"
#include "ptxgen/emit/Emit.hpp"

namespace ptxmm::ptxgen {
namespace {

using emit::predReg;
using emit::sanitize;
using emit::valueReg;
using emit::wgmmaAccReg;
using emit::wideReg;
using litmus::Instr;
using litmus::Operand;
using ptx::DataType;
using ptx::OpFamily;
using ptx::OpId;
using ptx::Space;

struct ThreadPlace {
  int role = 0;           ///< index of the litmus cluster
  int rank = 0;           ///< CTA rank in the cluster
  int wig = 0;            ///< warp in the instance group
  int sub = 0;            ///< lane share within a shared warp
  int ctaIndexInCta = 0;  ///< rank among the CTA's threads (%tid.x)
  int ctaThreads = 1;
};

struct SharedLoc {
  std::string name;
  int64_t init = 0;
  bool mbarrier = false;
  int mbarCount = 0;
  int ownerCta = -1;
};

struct LocTarget {
  bool shared = false;
  int index = -1;  ///< global or shared index
};

constexpr int kWarpgroupWarps = 4;
constexpr int kWgmmaTileBytes = wgmma::kTileBytes;

/// How a warpgroup kernel runs an instruction of a litmus thread: All: every thread of the warpgroup
/// executes it (wgmma, fences, register instructions, branches, reads and mbarrier waits: harmless
/// when repeated, and keeping the control flow the same in every thread so that the .sync.aligned
/// wgmma instructions are reached convergently); Leader: only the warpgroup's thread 0 (writes,
/// read-modify-writes, copies, arrivals: repeating them would change the test); Unsupported: not
/// translated (thread counts and per-warp forms), the kernel is not runnable.
enum class WarpgroupRole : uint8_t { All, Leader, Unsupported };

WarpgroupRole warpgroupRole(const Instr& in) {
  switch (ptx::opInfo(in.op).family) {
    case OpFamily::Wgmma:
    case OpFamily::WgmmaSync:
    case OpFamily::Local:
    case OpFamily::Fence:
    case OpFamily::ProxyFence:
    case OpFamily::Branch:
    case OpFamily::Mapa:
    case OpFamily::Read: return WarpgroupRole::All;
    case OpFamily::Mbarrier:
      return in.op == OpId::MbarrierTestWait || in.op == OpId::MbarrierTryWait ? WarpgroupRole::All
                                                                               : WarpgroupRole::Leader;
    case OpFamily::Write:
    case OpFamily::Rmw:
    case OpFamily::AsyncCopy:
    case OpFamily::AsyncGroup:
    case OpFamily::AsyncStore:
    case OpFamily::AsyncBulk:
    case OpFamily::TensormapCopy: return WarpgroupRole::Leader;
    case OpFamily::Barrier:
    case OpFamily::Clc:
    case OpFamily::Tcgen05:
    case OpFamily::Tcgen05Sync:
    case OpFamily::Tcgen05Fence:
    case OpFamily::WarpSync:
    case OpFamily::GridDep: return WarpgroupRole::Unsupported;
  }
  return WarpgroupRole::Unsupported;
}

class Generator {
 public:
  Generator(const litmus::Test& t, const GenOptions& o) : test_(t), opt_(o) {}

  Kernel run() {
    analyse();
    std::ostringstream body;
    emitInit(body);
    emitTest(body, 0);
    if (dependent_) emitTest(body, 1);
    k_.ptxVersion = version_;
    std::ostringstream head;
    head << "// ptxmm stress kernel for litmus test " << test_.name << " (generated; do not edit)\n";
    head << ".version " << version_ / 10 << "." << version_ % 10 << "\n";
    head << ".target " << opt_.arch << "\n.address_size 64\n\n";
    k_.ptx = head.str() + body.str();
    return k_;
  }

 private:
  const litmus::Test& test_;
  GenOptions opt_;
  Kernel k_;
  int version_ = 80;
  std::vector<ThreadPlace> places_;
  std::vector<int> roleClusterIds_;
  std::map<int, int> ctaRank_;  // cta id -> rank in its cluster
  std::map<int, int> ctaCluster_;
  int nw_ = 1;           // warps per instance group
  int laneShare_ = 1;    // litmus threads sharing a warp (power of 2)
  int laneStride_ = 32;  // lanes per litmus thread in a shared warp
  // Warpgroup kernel (a test with wgmma): each litmus thread is run by a whole warpgroup of 4 warps
  // (PTX ISA 9.2 §9.7.15.5: wgmma is .sync.aligned over the warpgroup), one instance per warpgroup.
  bool wg_ = false;
  int unitWarps_ = 1;  // warps running one litmus thread (4 in a warpgroup kernel)
  int slots_ = 0;
  std::map<std::string, LocTarget> locs_;
  std::vector<SharedLoc> shared_;
  int sharedCell_ = 16;
  int globalCell_ = 4;
  bool tensorMapNote_ = false;  // the test uses tensormap.replace (128-byte cells, note added)
  bool tensorCopy_ = false;     // the test has a cp.async.bulk.tensor (128-byte aligned shared cells)
  std::map<int, int> tmapOf_;   // global location -> index into k_.tensorMaps
  std::map<int, int> smapOf_;   // shared source of tensormap.cp_fenceproxy -> index into k_.tensorMaps
  // Per thread: the litmus registers also declared as .pred and as .b128 (emit::collectRegs).
  std::vector<std::set<std::string>> preds_, b128_;
  std::vector<std::map<std::string, litmus::LocRef>> addrRegs_;
  /// Per thread: the destinations of a `mapa` whose CTA rank is a register (mapaAddresses): the variable
  /// mapped, and whether the address is a .shared::cluster one (else generic).
  struct MapaReg {
    litmus::LocRef ref;
    bool sharedCluster = true;
  };
  std::vector<std::map<std::string, MapaReg>> mapaRegs_;
  /// The .b32 register through which thread t accesses the .shared::cluster address in register `reg`.
  static std::string mapaAddrReg(int t, const std::string& reg) {
    return "%dm" + std::to_string(t) + "_" + sanitize(reg);
  }
  std::map<std::string, ptx::Proxy> aliasProxy_;  // surface/texture/constant alias name -> its proxy
  std::map<int, int> surBind_, texBind_;          // global location -> index into k_.bindings
  int bcLanes_ = 0;                               // bank-conflict lanes per stress warp
  int bcOffset_ = 0;                              // byte offset of the bank-conflict rows in smem
  int clusterBarriers_ = 0;
  // Programmatic dependent launch: threads in both grids give two kernels (Kernel::dependentEntry); the
  // kernel being written runs grid kernelGrid_'s roles. arrives_[g]: the most barrier.cluster.arrive of a
  // thread of grid g, which its kernel's stress threads match.
  bool dependent_ = false;
  int kernelGrid_ = 0;
  int arrives_[2] = {0, 0};
  int labelCounter_ = 0;
  std::ostringstream* out_ = nullptr;

  [[noreturn]] void fail(const SourceLoc& loc, const std::string& msg) const { throw DiagnosticError(loc, msg); }

  /// Threads of one litmus cluster share a role; clusters of different GPUs are distinct roles, and the
  /// roles of the dependent grid come after those of the primary grid (a cluster never spans two grids).
  static constexpr int kGridRoleKey = 10000000;  ///< roleKey of the dependent grid's first possible role
  static int roleKey(const litmus::Placement& p) { return p.grid * kGridRoleKey + p.gpu * 100000 + p.cluster; }

  /// Does litmus thread t run in the kernel being written? (Both kernels hold every thread's analysis.)
  [[nodiscard]] bool inKernel(int t) const {
    return !dependent_ || (test_.threads[t].where.grid > 0 ? 1 : 0) == kernelGrid_;
  }

  std::string fresh(const std::string& base) { return "$" + base + std::to_string(labelCounter_++); }

  // ---------------------------------------------------------------- analysis
  void analyse() {
    if (test_.threads.empty()) fail({test_.file, 1, 1}, "test has no threads");
    // Roles (litmus clusters) and CTA ranks.
    std::map<int, std::set<int>> clusterCtas;
    for (const auto& th : test_.threads) {
      clusterCtas[roleKey(th.where)].insert(th.where.cta);
    }
    int maxCtas = 1;
    for (const auto& [cl, ctas] : clusterCtas) {
      roleClusterIds_.push_back(cl);
      int r = 0;
      for (int c : ctas) {
        ctaRank_[c] = r++;
        ctaCluster_[c] = cl;
      }
      maxCtas = std::max<int>(maxCtas, static_cast<int>(ctas.size()));
    }
    if (roleClusterIds_.size() > static_cast<size_t>(cfg::kMaxRoles))
      fail(test_.threads[0].src, "too many clusters (max 8)");
    if (maxCtas > 8) fail(test_.threads[0].src, "too many CTAs in one cluster (max 8)");
    k_.roles = static_cast<int>(roleClusterIds_.size());
    k_.primaryRoles = k_.roles;
    bool grid0 = false, grid1 = false;
    for (const auto& th : test_.threads) (th.where.grid > 0 ? grid1 : grid0) = true;
    dependent_ = grid0 && grid1;
    if (dependent_) {
      k_.dependentEntry = "ptxmm_dependent";
      k_.primaryRoles = static_cast<int>(
          std::count_if(roleClusterIds_.begin(), roleClusterIds_.end(), [](int key) { return key < kGridRoleKey; }));
      k_.notes.push_back(
          "programmatic dependent launch: the grid-1 threads run in a second kernel launched after the primary "
          "one with programmatic stream serialization; one instance per CTA, since a CTA's first "
          "griddepcontrol.launch_dependents triggers it for every instance it hosts (PTX ISA 9.2 §9.7.13.13)");
    }
    for (const auto& th : test_.threads)
      if (th.where.gpu != 0) {
        k_.notes.push_back("threads placed on gpu " + std::to_string(th.where.gpu) +
                           " run on the same device as gpu 0 (in other clusters): a single-GPU approximation");
        break;
      }
    k_.clusterDim = maxCtas;
    for (const auto& th : test_.threads)
      for (const auto& st : th.code)
        if (st.instr && (ptx::opInfo(st.instr->op).family == OpFamily::Wgmma ||
                         ptx::opInfo(st.instr->op).family == OpFamily::WgmmaSync))
          wg_ = true;
    unitWarps_ = wg_ ? kWarpgroupWarps : 1;
    if (wg_) {
      k_.notes.push_back(
          "wgmma: each litmus thread is run by a warpgroup (128 threads, one instance); the "
          "accumulator follows D[0][0] = a*b of the operands' first words read as f16 (exact for "
          "0 <= a, b < " +
          std::to_string(wgmma::kExactBound) + ")");
      for (const auto& th : test_.threads)
        if (th.where.warp >= 0) {
          k_.notes.push_back("warp placements are not kept in a warpgroup kernel: every litmus thread has a warpgroup");
          break;
        }
    }
    // Warps within CTAs.
    std::map<int, std::vector<int>> ctaThreads;
    for (size_t i = 0; i < test_.threads.size(); ++i)
      ctaThreads[test_.threads[i].where.cta].push_back(static_cast<int>(i));
    places_.resize(test_.threads.size());
    int maxShare = 1;
    for (const auto& [cta, ths] : ctaThreads) {
      std::map<int, int> warpOf;  // placement warp -> wig
      std::map<int, int> subCount;
      int nextWarp = 0;
      int idx = 0;
      for (int ti : ths) {
        const auto& th = test_.threads[ti];
        int w;
        if (wg_) {
          w = nextWarp++;  // a warpgroup of its own (instances never share one)
        } else if (th.where.warp >= 0) {
          auto it = warpOf.find(th.where.warp);
          if (it == warpOf.end()) it = warpOf.emplace(th.where.warp, nextWarp++).first;
          w = it->second;
        } else {
          w = nextWarp++;
        }
        auto& p = places_[ti];
        p.role = static_cast<int>(std::find(roleClusterIds_.begin(), roleClusterIds_.end(), roleKey(th.where)) -
                                  roleClusterIds_.begin());
        p.rank = ctaRank_[cta];
        p.wig = w;
        p.sub = subCount[w]++;
        p.ctaIndexInCta = idx++;
        p.ctaThreads = static_cast<int>(ths.size());
        maxShare = std::max(maxShare, subCount[w]);
      }
      nw_ = std::max(nw_, nextWarp);
    }
    laneShare_ = 1;
    while (laneShare_ < maxShare) laneShare_ *= 2;
    if (laneShare_ > 32) fail(test_.threads[0].src, "too many threads in one warp");
    laneStride_ = wg_ ? 1 : 32 / laneShare_;
    if (dependent_) {
      // One instance per CTA: "repeated invocations of [launch_dependents] by threads in the current CTA will
      // have no additional side effects past that of the first invocation" (PTX ISA 9.2 §9.7.13.13), so a
      // CTA hosting several instances would let the dependent grid start before the others' launch_dependents.
      laneStride_ = 1;
      opt_.groupsPerBlock = 1;
    }
    const int unit = nw_ * unitWarps_;  // warps of one instance group
    if (opt_.groupsPerBlock < 1) opt_.groupsPerBlock = 1;
    if (unit * opt_.groupsPerBlock + opt_.stressWarpsPerBlock > 32)
      opt_.groupsPerBlock = std::max(1, (32 - opt_.stressWarpsPerBlock) / unit);
    if (unit * opt_.groupsPerBlock + opt_.stressWarpsPerBlock > 32)
      fail(test_.threads[0].src, "too many warps per CTA");
    slots_ = opt_.groupsPerBlock * laneStride_;
    k_.slotsPerCta = slots_;
    k_.blockDim = 32 * (unit * opt_.groupsPerBlock + opt_.stressWarpsPerBlock);
    k_.litmusThreadWidth = wg_ ? 32 * kWarpgroupWarps : 1;
    k_.reporters = static_cast<int>(test_.threads.size());
    k_.arch = opt_.arch;
    if (opt_.arch != "sm_90a" && opt_.arch != "sm_100a")
      fail({test_.file, 1, 1}, "unsupported --arch '" + opt_.arch + "' (expected sm_90a or sm_100a)");
    version_ = opt_.arch == "sm_100a" ? 86 : 80;

    // Locations.
    int maxCopy = 4;
    preds_.resize(test_.threads.size());
    b128_.resize(test_.threads.size());
    addrRegs_.resize(test_.threads.size());
    mapaRegs_.resize(test_.threads.size());
    bool usesCluster = k_.clusterDim > 1;
    for (size_t ti = 0; ti < test_.threads.size(); ++ti) {
      int arrives = 0;
      for (const auto& st : test_.threads[ti].code) {
        if (!st.instr) continue;
        const Instr& in = *st.instr;
        version_ = std::max(version_, minPtxVersion(in));
        const auto& info = ptx::opInfo(in.op);
        const ptx::Target needs = litmus::requiredTarget(in);  // qualifier-specific minima included
        if (needs.sm > 100)
          fail(in.src, std::string(info.mnemonic) + " needs " + ptx::toString(needs) +
                           ", which the stress kernel does not target (sm_90a, sm_100a)");
        if (needs.sm >= 100 && opt_.arch != "sm_100a")
          fail(in.src, std::string(info.mnemonic) + " needs sm_100a (use --arch sm_100a)");
        if (in.op == OpId::WgmmaMmaAsync && in.operands.size() > 3 && in.operands[3].kind == Operand::Kind::Imm &&
            in.operands[3].imm != 0 && k_.notRunnable.empty())
          k_.notRunnable =
              "wgmma.mma_async with scale-d 1 reads its accumulator input from .f32 registers that the kernel writes "
              "from the litmus register right before it, a register access that no wgmma.fence separates from the "
              "wgmma (undefined, PTX ISA 9.2 §9.7.15.7.1): the kernel is emitted and assembled only";
        if (wg_ && warpgroupRole(in) == WarpgroupRole::Unsupported && k_.notRunnable.empty())
          k_.notRunnable = std::string(info.mnemonic) +
                           " in a warpgroup kernel (a test with wgmma: each litmus thread is run by 128 threads): "
                           "its thread counts and per-warp forms are not translated, so the kernel is emitted and "
                           "assembled only";
        if ((info.family == ptx::OpFamily::Tcgen05 || info.family == ptx::OpFamily::Tcgen05Sync ||
             info.family == ptx::OpFamily::Tcgen05Fence) &&
            k_.notRunnable.empty())
          k_.notRunnable =
              "the stress kernel allocates no tensor memory (no tcgen05.alloc / relinquish_alloc_permit / dealloc; "
              "a .tmem location is a shared cell standing for its address) and tcgen05.ld/st are .sync.aligned over "
              "a whole warp: the kernel is emitted and assembled only (PTX ISA 9.2 §9.7.16)";
        if (in.op == OpId::BarrierClusterArrive) ++arrives;
        if (dependent_ && (in.op == OpId::BarSync || in.op == OpId::BarArrive))
          fail(in.src, std::string(info.mnemonic) +
                           " in a test with a dependent grid: its kernels run one instance per CTA, one lane per "
                           "litmus thread, but a named barrier counts whole warps (PTX ISA 9.2 §9.7.13.1: the "
                           "thread count is a multiple of the warp size)");
        if (in.op == OpId::BarrierClusterArrive || in.op == OpId::BarrierClusterWait || in.op == OpId::Mapa ||
            in.space == Space::SharedCluster)
          usesCluster = true;
        if (in.op == OpId::CpAsync || in.op == OpId::CpAsyncBulk)
          for (const auto& o : in.operands)
            if (o.kind == Operand::Kind::Imm)
              maxCopy = std::max<int>(maxCopy, static_cast<int>(std::min<int64_t>(o.imm, 4096)));
        if (in.op == OpId::Ld || in.op == OpId::St || in.op == OpId::Atom || in.op == OpId::Red)
          maxCopy = std::max(maxCopy, ptx::byteWidth(in.type == DataType::None ? DataType::B32 : in.type));
        if (in.op == OpId::TensormapReplace && !tensorMapNote_) {
          // A tensor-map object is 1024 bits (§9.7.9.26): one 128-byte cell per location.
          maxCopy = std::max(maxCopy, 128);
          tensorMapNote_ = true;
          k_.notes.push_back(
              "tensormap.replace: locations are 128-byte cells; the tensor-map layout is opaque, so values read from a "
              "tensor-map location are not the model's descriptor versions");
        }
        if (tensorOp(in.op)) {
          // The map is a 128-byte CUtensorMap; the shared destination of a tensor copy is 128-byte aligned
          // (CUDA Programming Guide, "Tensor Memory Access": alignment requirements of bulk tensor copies).
          maxCopy = std::max(maxCopy, 128);
          tensorCopy_ = true;
        }
        collectRegs(static_cast<int>(ti), in);
        for (const auto& o : in.operands)
          if ((o.kind == Operand::Kind::Addr || o.kind == Operand::Kind::Loc) && o.loc.cta >= 0) usesCluster = true;
      }
      clusterBarriers_ = std::max(clusterBarriers_, arrives);
      int& gridArrives = arrives_[test_.threads[ti].where.grid > 0 ? 1 : 0];
      gridArrives = std::max(gridArrives, arrives);
    }
    k_.clustered = usesCluster;
    if (usesCluster) version_ = std::max(version_, 80);
    globalCell_ = opt_.globalCellBytes > 0 ? opt_.globalCellBytes : 4;
    while (globalCell_ < maxCopy) globalCell_ *= 2;
    sharedCell_ = std::max(16, opt_.sharedCellBytes);
    // A wgmma operand is a whole m64n8k16 tile (emit/Wgmma.cpp): every shared cell holds one.
    if (wg_) sharedCell_ = std::max(sharedCell_, kWgmmaTileBytes);
    while (sharedCell_ < maxCopy) sharedCell_ *= 2;

    for (const auto& d : test_.locations) {
      if (!d.aliasOf.empty()) continue;
      if (d.isMbarrier || d.space == Space::SharedCta || d.space == Space::SharedCluster) {
        locs_[d.name] = {true, static_cast<int>(shared_.size())};
        shared_.push_back({d.name, d.init, d.isMbarrier, d.mbarCount, d.ownerCta});
      } else if (d.space == Space::Global || d.space == Space::Generic) {
        locs_[d.name] = {false, static_cast<int>(k_.globals.size())};
        k_.globals.push_back({d.name, d.init, globalCell_});
      } else {
        fail(d.src, "location '" + d.name + "' in state space " + std::string(ptx::toString(d.space)) +
                        " cannot be placed by the stress kernel");
      }
    }
    for (const auto& d : test_.locations) {
      if (d.aliasOf.empty()) continue;
      auto it = locs_.find(d.aliasOf);
      if (it == locs_.end()) fail(d.src, "alias '" + d.name + "' of unknown location '" + d.aliasOf + "'");
      if (d.aliasProxy != ptx::Proxy::Generic) {
        // A proxy view of x: accessed only by the instructions of that proxy (checkProxyAccesses);
        // its object is created only if some instruction uses it.
        if (it->second.shared)
          fail(d.src, "'" + d.name + " @ " + std::string(ptx::toString(d.aliasProxy)) + " aliases " + d.aliasOf +
                          "': '" + d.aliasOf +
                          "' is in shared memory, but CUDA surface/texture/constant objects view global memory only");
        locs_[d.name] = it->second;
        aliasProxy_[d.name] = d.aliasProxy;
        continue;
      }
      locs_[d.name] = it->second;
      k_.notes.push_back("virtual alias '" + d.name + "' of '" + d.aliasOf +
                         "' is run through the same virtual address (no second VA mapping)");
    }
    if (k_.globals.size() > static_cast<size_t>(cfg::kMaxGlobals))
      fail({test_.file, 1, 1}, "too many global locations (max 16)");
    // Bank-conflict rows (one 128-byte row per lane: word w of every row is in bank w) follow the
    // shared cells, 128-aligned so that row word w shares a bank with the cells at offsets = 4w mod 128.
    if (opt_.bankConflictLanes < 0 || opt_.bankConflictLanes > 32)
      fail({test_.file, 1, 1},
           "bankConflictLanes must be in 0..32 (got " + std::to_string(opt_.bankConflictLanes) + ")");
    bcLanes_ = opt_.bankConflictLanes;
    if (bcLanes_ > 0 && shared_.empty()) {
      k_.notes.push_back("bank-conflict stress not generated: the test has no shared-memory location");
      bcLanes_ = 0;
    }
    const int bcBytes = bcLanes_ > 0 ? 128 + bcLanes_ * 128 : 0;  // rows + worst-case alignment padding
    auto layoutShared = [&] {
      const int cells = static_cast<int>(shared_.size()) * slots_ * sharedCell_;
      bcOffset_ = (cells + 127) / 128 * 128;
      k_.sharedBytes = bcLanes_ > 0 ? bcOffset_ + bcLanes_ * 128 : cells;
    };
    layoutShared();
    if (k_.sharedBytes > 48 * 1024) {
      const int cells = static_cast<int>(shared_.size()) * slots_ * sharedCell_;
      opt_.groupsPerBlock = std::max(1, opt_.groupsPerBlock * (48 * 1024 - bcBytes) / cells);
      slots_ = opt_.groupsPerBlock * laneStride_;
      k_.slotsPerCta = slots_;
      k_.blockDim = 32 * (nw_ * unitWarps_ * opt_.groupsPerBlock + opt_.stressWarpsPerBlock);
      layoutShared();
    }
    k_.bankConflictLanes = bcLanes_;
    k_.bankConflictOffset = bcLanes_ > 0 ? bcOffset_ : -1;
    for (const auto& ri : test_.regInits) {
      if (ri.thread < 0 || ri.thread >= static_cast<int>(test_.threads.size()))
        fail(ri.src, "register init for an unknown thread");
      if (ri.addressOf) {
        if (!locs_.count(ri.addressOf->name))
          fail(ri.src, "register holds the address of unknown location '" + ri.addressOf->name + "'");
        if (aliasProxy_.count(ri.addressOf->name))
          fail(ri.src, "register holds the address of '" + ri.addressOf->name + "', a " +
                           std::string(ptx::toString(aliasProxy_.at(ri.addressOf->name))) +
                           "-proxy alias: it has no generic address");
        addrRegs_[ri.thread][ri.reg] = *ri.addressOf;
      }
    }
    mapaAddresses();

    checkProxyAccesses();
    analyseTensorMaps();

    // Observed terms and the result record.
    int word = 0;
    for (const auto& term : outcome::observedTerms(test_)) {
      ObservedTerm ot;
      ot.term = term;
      ot.label = litmus::printTerm(term);
      if (term.kind == litmus::Term::Kind::Reg) {
        if (term.thread < 0 || term.thread >= static_cast<int>(test_.threads.size()))
          fail({test_.file, 1, 1}, "condition names a register of unknown thread " + std::to_string(term.thread));
        ot.source = TermSource::Register;
        ot.resultIndex = word++;
        ot.widthBits = 64;
      } else {
        auto it = locs_.find(term.loc.name);
        if (it == locs_.end()) fail({test_.file, 1, 1}, "condition names unknown location '" + term.loc.name + "'");
        if (it->second.shared) {
          if (smapOf_.count(it->second.index))
            fail({test_.file, 1, 1}, "the final value of '" + term.loc.name +
                                         "' is observed, but it holds a tensor map: on the device its cells hold "
                                         "128-byte CUtensorMaps, not the model's descriptor versions");
          ot.source = TermSource::SharedLoc;
          ot.resultIndex = word++;
          ot.widthBits = 64;
        } else {
          ot.source = TermSource::GlobalLoc;
          ot.globalLoc = it->second.index;
          if (tmapOf_.count(it->second.index))
            fail({test_.file, 1, 1}, "the final value of '" + term.loc.name +
                                         "' is observed, but it holds a tensor map: on the device its cells hold "
                                         "128-byte CUtensorMaps, not the model's descriptor versions");
          if (const Instr* w = surfaceWriter(it->second.index))
            fail(w->src, "the final value of '" + term.loc.name + "' is observed, but " +
                             std::string(spellProxyOp(*w)) +
                             " writes it through the surface proxy: the kernel reads final values in the same "
                             "launch through the generic proxy, which is not ordered after surface writes "
                             "(PTX has no surface proxy fence)");
          ot.widthBits = globalCell_ >= 8 ? 64 : 32;
        }
      }
      k_.terms.push_back(ot);
    }
    if (k_.terms.size() > static_cast<size_t>(cfg::kMaxTerms))
      fail({test_.file, 1, 1}, "too many observed terms (max 16)");
    k_.resultWords = word + 1;
    if (version_ > 90) version_ = 90;
  }

  /// The litmus registers of thread t that are wgmma accumulators (d0 of a wgmma.mma_async).
  std::set<std::string> wgmmaAccumulators(int t) const {
    std::set<std::string> accs;
    for (const auto& st : test_.threads[t].code)
      if (st.instr && st.instr->op == OpId::WgmmaMmaAsync && !st.instr->operands.empty() &&
          emit::wgmmaAccumulator(*st.instr).kind == Operand::Kind::Reg)
        accs.insert(emit::wgmmaAccumulator(*st.instr).name);
    return accs;
  }

  /// `mapa d, a, b` (PTX ISA 9.2 §9.7.9.23): d holds the copy of a's shared variable in the CTA of rank b
  /// of the thread's cluster, d an address register assigned once. An integer rank (or a special register,
  /// whose value the kernel knows) names a CTA of the test: accesses through d use the prologue's static
  /// mapping (addrRegs_). A rank in a register is known only at run time: the real mapa (emit/Warp.cpp)
  /// writes d, and accesses through d use d's value as their address (mapaRegs_).
  void mapaAddresses() {
    for (size_t t = 0; t < test_.threads.size(); ++t)
      for (const auto& st : test_.threads[t].code) {
        if (!st.instr || st.instr->op != OpId::Mapa) continue;
        const Instr& in = *st.instr;
        if (in.operands.size() != 3) fail(in.src, "mapa takes d, a, b");
        const Operand& d = in.operands[0];
        const Operand& a = in.operands[1];
        const Operand& b = in.operands[2];
        if (b.kind != Operand::Kind::Imm && b.kind != Operand::Kind::Special && b.kind != Operand::Kind::Reg)
          fail(b.src, "the CTA rank of `mapa` must be an integer or a register");
        if (d.kind != Operand::Kind::Reg) fail(d.src, "the destination of `mapa` must be a register");
        litmus::LocRef ref;
        if (a.kind == Operand::Kind::Loc) {
          ref = a.loc;
        } else if (auto it = addrRegs_[t].find(a.name); a.kind == Operand::Kind::Reg && it != addrRegs_[t].end()) {
          ref = it->second;
        } else {
          fail(a.src, "the source of `mapa` must be a shared variable or a register initialised with its address");
        }
        if (addrRegs_[t].count(d.name) || mapaRegs_[t].count(d.name))
          fail(d.src, "address register '" + d.name +
                          "' is assigned more than once: the stress kernel resolves addresses statically");
        if (b.kind == Operand::Kind::Reg) {
          ref.cta = -1;  // the rank is the register's value at run time
          mapaRegs_[t][d.name] = {ref, in.space == Space::SharedCluster};
          continue;
        }
        const int64_t rank = b.kind == Operand::Kind::Imm ? b.imm : specialValue(static_cast<int>(t), b);
        const int myCta = test_.threads[t].where.cta;
        int target = -1;
        for (const auto& [cta, r] : ctaRank_)
          if (ctaCluster_.at(cta) == ctaCluster_.at(myCta) && r == rank) target = cta;
        if (target < 0)
          fail(b.src, "CTA rank " + std::to_string(rank) + " names no CTA of the thread's cluster in this test");
        ref.cta = target;
        addrRegs_[t][d.name] = ref;
      }
  }

  void collectRegs(int t, const Instr& in) {
    emit::Regs regs{preds_[t], b128_[t]};
    emit::collectRegs(in, regs);
  }

  // ---------------------------------------------------------------- surface / texture / constant proxies
  static bool isProxyAccess(OpId op) {
    return op == OpId::Sust || op == OpId::Suld || op == OpId::Tld || op == OpId::Cold;
  }

  /// "sust.weak": the instruction's mnemonic and semantics, for messages.
  static std::string spellProxyOp(const Instr& in) {
    std::string s(ptx::opInfo(in.op).mnemonic);
    if (in.sem != ptx::Sem::None) s += "." + std::string(ptx::toString(in.sem));
    return s;
  }

  /// The location operand of an instruction (nullptr if none).
  static const Operand* locOperand(const Instr& in) {
    for (const auto& op : in.operands)
      if (op.kind == Operand::Kind::Addr || op.kind == Operand::Kind::Loc) return &op;
    return nullptr;
  }

  /// The physical location an address operand names, if it names a declared one directly.
  std::optional<LocTarget> targetOf(const Operand& op) const {
    if (op.kind != Operand::Kind::Addr && op.kind != Operand::Kind::Loc) return std::nullopt;
    if (!op.baseReg.empty()) return std::nullopt;
    auto it = locs_.find(op.loc.name);
    if (it == locs_.end()) return std::nullopt;
    return it->second;
  }

  /// The first sust writing global location l (nullptr if none).
  const Instr* surfaceWriter(int l) const {
    for (const auto& th : test_.threads)
      for (const auto& st : th.code)
        if (st.instr && st.instr->op == OpId::Sust)
          if (const Operand* a = locOperand(*st.instr))
            if (auto t = targetOf(*a); t && !t->shared && t->index == l) return &*st.instr;
    return nullptr;
  }

  /// Every instruction of a non-generic proxy accesses an alias of that proxy, in a form the kernel
  /// can encode; no generic instruction uses such an alias. Records the surface / texture bindings.
  void checkProxyAccesses() {
    for (const auto& th : test_.threads)
      for (const auto& st : th.code) {
        if (!st.instr) continue;
        const Instr& in = *st.instr;
        const std::string mnemonic(ptx::opInfo(in.op).mnemonic);
        if (in.dialect)
          fail(in.src, mnemonic +
                           ": a Dat3M form with no PTX counterpart (atom.sub/mul/div, a weak atom, suatom/sured, "
                           "bar.cta.arrive without a count) has no stress kernel (litmus/README.md)");
        if (!isProxyAccess(in.op)) {
          for (const auto& op : in.operands) {
            if (op.kind != Operand::Kind::Addr && op.kind != Operand::Kind::Loc) continue;
            auto it = aliasProxy_.find(op.loc.name);
            if (it == aliasProxy_.end() || !op.baseReg.empty()) continue;
            const std::string proxy(ptx::toString(it->second));
            fail(op.src, "'" + op.loc.name + "' is a " + proxy + "-proxy alias: only " +
                             (it->second == ptx::Proxy::Surface   ? std::string("sust/suld")
                              : it->second == ptx::Proxy::Texture ? std::string("tld")
                                                                  : std::string("cold")) +
                             " may access it, not the generic-proxy instruction " + mnemonic);
          }
          continue;
        }
        const ptx::Proxy want = ptx::opInfo(in.op).proxy;
        const std::string proxy(ptx::toString(want));
        const Operand* a = locOperand(in);
        if (a == nullptr) fail(in.src, mnemonic + ": expected a location operand");
        auto it = aliasProxy_.find(a->loc.name);
        if (!a->baseReg.empty() || it == aliasProxy_.end() || it->second != want)
          fail(a->src, mnemonic + " accesses memory through the " + proxy + " proxy: its operand must name a `@ " +
                           proxy + " aliases` location (got '" + (a->baseReg.empty() ? a->loc.name : a->baseReg) +
                           "')");
        if (in.op == OpId::Cold) failConstant(in, *a);
        if (a->kind == Operand::Kind::Addr && a->imm != 0)
          fail(a->src, mnemonic + ": an offset into a " + proxy + " alias is not supported by the stress kernel");
        if (in.type != DataType::None && ptx::byteWidth(in.type) != 4)
          fail(in.src, mnemonic + std::string(ptx::toString(in.type)) +
                           ": the stress kernel binds 32-bit surface/texture elements only");
        const int l = locs_.at(a->loc.name).index;
        (want == ptx::Proxy::Surface ? surBind_ : texBind_).emplace(l, -1);
      }
    for (int l = 0; l < static_cast<int>(k_.globals.size()); ++l) {
      if (auto it = surBind_.find(l); it != surBind_.end()) {
        it->second = static_cast<int>(k_.bindings.size());
        k_.bindings.push_back({ptx::Proxy::Surface, l, "p_sur" + std::to_string(l)});
      }
      if (auto it = texBind_.find(l); it != texBind_.end()) {
        it->second = static_cast<int>(k_.bindings.size());
        k_.bindings.push_back({ptx::Proxy::Texture, l, "p_tex" + std::to_string(l)});
      }
    }
    k_.surfaceMap = !surBind_.empty();
    if (!k_.bindings.empty() && globalCell_ != 4)
      fail({test_.file, 1, 1},
           "surface/texture aliases need 32-bit location cells, but the test's widest access needs " +
               std::to_string(globalCell_) + "-byte cells");
  }

  /// Constant-proxy reads cannot be run: PTX's .const space is host-initialised read-only memory.
  [[noreturn]] void failConstant(const Instr& in, const Operand& a) {
    const LocTarget target = locs_.at(a.loc.name);
    std::string physical = a.loc.name;
    for (const auto& d : test_.locations)
      if (d.name == a.loc.name && !d.aliasOf.empty()) physical = d.aliasOf;
    const Instr* writer = nullptr;
    for (const auto& th : test_.threads)
      for (const auto& st : th.code) {
        if (!st.instr || writer) continue;
        const auto fam = ptx::opInfo(st.instr->op).family;
        if (fam != OpFamily::Write && fam != OpFamily::Rmw && fam != OpFamily::AsyncCopy) continue;
        for (const auto& op : st.instr->operands) {
          auto t = targetOf(op);
          if (t && t->shared == target.shared && t->index == target.index) writer = &*st.instr;
          if (writer || fam == OpFamily::AsyncCopy) break;  // a copy writes its first operand only
        }
      }
    std::string why = writer ? ", which this test writes with " + std::string(ptx::opInfo(writer->op).mnemonic) +
                                   " at " + writer->src.str()
                             : ", a location of the kernel's writable global buffer";
    fail(in.src,
         spellProxyOp(in) + " reads '" + a.loc.name +
             "' through the constant proxy (ld.const), but PTX's .const "
             "state space is read-only memory initialised by the host (PTX ISA 9.2 §5.1.3), so it cannot alias '" +
             physical + "'" + why + "; the test cannot be run on hardware");
  }

  // ---------------------------------------------------------------- tensor maps
  /// The instructions that name a tensor map `[tensorMap, {coords}]`.
  static bool tensorOp(OpId op) {
    return op == OpId::CpAsyncBulkTensor || op == OpId::CpReduceAsyncBulkTensor ||
           op == OpId::CpAsyncBulkPrefetchTensor;
  }

  /// The `[tensorMap, {coords}]` operand of a tensor copy, reduction or prefetch (nullptr if it has none).
  static const Operand* tensorMapOperand(const Instr& in) {
    for (const auto& op : in.operands)
      if (op.kind == Operand::Kind::Addr && !op.elems.empty()) return &op;
    return nullptr;
  }

  /// The tensor maps (Kernel::tensorMaps): every global location that a tensor copy, reduction or prefetch
  /// names as its map, its rank, its descriptor versions or the tensor location it writes; refuses the
  /// uses of a map that have no device form.
  void analyseTensorMaps() {
    std::map<int, const Instr*> loadOf;  // map -> a tensor load through it
    for (const auto& th : test_.threads)
      for (const auto& st : th.code) {
        if (!st.instr || !tensorOp(st.instr->op)) continue;
        const Instr& in = *st.instr;
        const std::string mnemonic(ptx::opInfo(in.op).mnemonic);
        const Operand* m = tensorMapOperand(in);
        if (m == nullptr) fail(in.src, mnemonic + " without its `[tensorMap, {coords}]` operand");
        if (!m->baseReg.empty())
          fail(m->src, "the tensor map of " + mnemonic +
                           " must name a location (not an address register): the runner encodes a CUtensorMap into "
                           "that location's cells");
        auto target = targetOf(*m);
        if (!target) fail(m->src, "unknown location '" + m->loc.name + "'");
        if (target->shared)
          fail(m->src, "'" + m->loc.name + "' is in shared memory, but the tensor map of " + mnemonic +
                           " resides in .param, .const or .global space (PTX ISA 9.2 §9.7.9.25.5.2)");
        if (m->imm != 0) fail(m->src, "an offset into a tensor map is not a tensor map");
        for (const auto& c : m->elems)
          if (c.kind != Operand::Kind::Imm || c.imm != 0)
            fail(c.src,
                 "tensor coordinate: the stress kernel's tensor is one 16-byte box at coordinate 0 (coordinates are "
                 "not modelled, docs/lowering.md \"Tensor maps\"), so only the coordinate 0 can be run");
        const int rank = static_cast<int>(m->elems.size());
        auto [it, fresh] = tmapOf_.emplace(target->index, static_cast<int>(k_.tensorMaps.size()));
        if (fresh) {
          TensorMapSpec spec;
          spec.globalLoc = target->index;
          spec.rank = rank;
          spec.versions = {k_.globals[target->index].init};
          k_.tensorMaps.push_back(spec);
        } else if (k_.tensorMaps[it->second].rank != rank) {
          fail(in.src, "'" + m->loc.name + "' is the map of copies of different ranks (." +
                           std::to_string(k_.tensorMaps[it->second].rank) + "d and ." + std::to_string(rank) +
                           "d): one encoded CUtensorMap has one rank");
        }
        TensorMapSpec& spec = k_.tensorMaps[it->second];
        const bool writes =
            in.op == OpId::CpReduceAsyncBulkTensor || (in.op == OpId::CpAsyncBulkTensor && in.space == Space::Global);
        if (in.op == OpId::CpAsyncBulkTensor && !writes) loadOf.emplace(target->index, &in);
        if (writes) {
          // The tensor written through the map is the location `<map>_tensor` (docs/lowering.md "Tensor maps").
          const std::string tensor = m->loc.name + "_tensor";
          auto t = locs_.find(tensor);
          if (t == locs_.end() || t->second.shared || aliasProxy_.count(tensor))
            fail(in.src, mnemonic + " writes the tensor that '" + m->loc.name + "' locates, the global location '" +
                             tensor + "' (docs/lowering.md \"Tensor maps\"), which the test does not declare");
          spec.tensorLoc = t->second.index;
        }
        if (spec.tensorLoc >= 0 && loadOf.count(target->index))
          fail(loadOf.at(target->index)->src,
               "'" + m->loc.name +
                   "' is loaded through (the copy delivers its descriptor version) and written "
                   "through (into '" +
                   m->loc.name + "_tensor'): one encoded CUtensorMap per cell cannot realise both");
      }
    if (tmapOf_.empty()) return;
    version_ = std::max(version_, 83);  // the prologue's fence.proxy.tensormap::generic (PTX ISA 8.3)
    sharedMapSources();
    // The uses of the maps: the copies, the tensormap proxy fences, the updates that install a version.
    for (size_t t = 0; t < test_.threads.size(); ++t)
      for (const auto& st : test_.threads[t].code) {
        if (!st.instr) continue;
        const Instr& in = *st.instr;
        for (const auto& op : in.operands) {
          if (op.kind != Operand::Kind::Addr && op.kind != Operand::Kind::Loc) continue;
          std::optional<LocTarget> target;
          if (!op.baseReg.empty()) {
            auto r = addrRegs_[t].find(op.baseReg);
            if (r != addrRegs_[t].end() && locs_.count(r->second.name)) target = locs_.at(r->second.name);
          } else {
            target = targetOf(op);
          }
          if (target && target->shared && smapOf_.count(target->index)) {
            installSharedVersion(in, op, target->index);
            continue;
          }
          if (!target || target->shared || !tmapOf_.count(target->index)) continue;
          if (!op.baseReg.empty() || op.kind == Operand::Kind::Loc)
            fail(op.src, "'" + k_.globals[target->index].name +
                             "' holds a tensor map: its address is used only as the operand of the instructions "
                             "that take a tensor map (an address register or an address value has no device form)");
          installVersion(in, op, k_.tensorMaps[tmapOf_.at(target->index)]);
        }
      }
    for (const auto& ri : test_.regInits)
      if (ri.addressOf && locs_.count(ri.addressOf->name) && !locs_.at(ri.addressOf->name).shared &&
          tmapOf_.count(locs_.at(ri.addressOf->name).index))
        fail(ri.src, "a register holds the address of '" + ri.addressOf->name +
                         "', which holds a tensor map: the stress kernel uses a map's address only as an operand");
    int slot = 0;
    for (auto& spec : k_.tensorMaps) {
      spec.firstSlot = slot;
      slot += static_cast<int>(spec.versions.size());
    }
    k_.tensorSlots = slot;
  }

  /// The shared sources of `tensormap.cp_fenceproxy [map], [S], 128` into a map that a tensor copy reads
  /// (TensorMapSpec::sharedSources, smapOf_): S's cells hold a runner-encoded CUtensorMap of the map, the
  /// one of S's initial value, added to the map's versions.
  void sharedMapSources() {
    for (const auto& th : test_.threads)
      for (const auto& st : th.code) {
        if (!st.instr || st.instr->op != OpId::TensormapCpFenceproxy || st.instr->operands.size() < 2) continue;
        const Instr& in = *st.instr;
        const auto dst = targetOf(in.operands[0]);
        if (!dst || dst->shared || !tmapOf_.count(dst->index)) continue;
        const int m = tmapOf_.at(dst->index);
        const std::string name = k_.globals[dst->index].name;
        if (k_.tensorMaps[m].tensorLoc >= 0)
          fail(in.src, "tensormap.cp_fenceproxy writes a descriptor into '" + name +
                           "', which a tensor store or reduction writes through: the kernel encodes that map over '" +
                           name + "_tensor' only (one descriptor version)");
        const Operand& src = in.operands[1];
        const auto s = targetOf(src);
        if (!s || !s->shared || shared_[s->index].mbarrier || src.loc.cta >= 0 ||
            (src.kind == Operand::Kind::Addr && src.imm != 0))
          fail(src.src, "tensormap.cp_fenceproxy copies a descriptor into '" + name +
                            "', which a tensor copy reads: its source must name a shared variable of the executing "
                            "CTA (no address register, offset or other CTA's copy), whose cells the kernel fills "
                            "with a CUtensorMap that the runner encoded");
        auto [it, fresh] = smapOf_.emplace(s->index, m);
        if (!fresh && it->second != m)
          fail(src.src, "'" + shared_[s->index].name +
                            "' is copied into two tensor maps: its cells hold the CUtensorMap of one");
        if (!fresh) continue;
        TensorMapSpec& spec = k_.tensorMaps[m];
        spec.sharedSources.push_back(shared_[s->index].name);
        if (spec.slotOf(shared_[s->index].init) < 0) spec.versions.push_back(shared_[s->index].init);
      }
  }

  /// `in` accesses shared location S (a source of tensormap.cp_fenceproxy into a map, smapOf_) through
  /// operand `op`: the copy itself, or `tensormap.replace.tile.global_address [S], v` installing descriptor
  /// version v in S (added to the map's versions); anything else is refused with the reason.
  void installSharedVersion(const Instr& in, const Operand& op, int s) {
    const std::string name = shared_[s].name;
    TensorMapSpec& spec = k_.tensorMaps[smapOf_.at(s)];
    if (!op.baseReg.empty() || op.kind == Operand::Kind::Loc)
      fail(op.src, "'" + name + "' holds a tensor map: its address is used only as an operand");
    if (in.op == OpId::TensormapCpFenceproxy && &op == &in.operands[1]) return;
    if (in.op == OpId::TensormapReplace && in.hasFlag("global_address") && &op == &in.operands[0]) {
      const Operand& v = in.operands.back();
      if (v.kind != Operand::Kind::Imm)
        fail(v.src, "tensormap.replace installs a descriptor version in '" + name +
                        "', which tensormap.cp_fenceproxy copies into a map that a cp.async.bulk.tensor reads: the "
                        "version must be an integer, which the kernel turns into the address of that version's "
                        "tensor (docs/hardware/README.md \"Tensor maps\")");
      if (spec.slotOf(v.imm) < 0) spec.versions.push_back(v.imm);
      return;
    }
    fail(in.src, std::string(ptx::opInfo(in.op).mnemonic) + " accesses '" + name +
                     "', which tensormap.cp_fenceproxy copies into the tensor map '" + k_.globals[spec.globalLoc].name +
                     "': on the device its cells are 128-byte CUtensorMaps, so only "
                     "tensormap.replace.tile.global_address and that copy can use it");
  }

  /// `in` uses tensor map `spec` through operand `op`: a copy or a tensormap fence, or an update that
  /// installs a descriptor version (added to spec.versions); anything else is refused with the reason.
  void installVersion(const Instr& in, const Operand& op, TensorMapSpec& spec) {
    const std::string name = k_.globals[spec.globalLoc].name;
    const std::string mnemonic(ptx::opInfo(in.op).mnemonic);
    auto add = [&](const Operand& v) {
      if (v.kind != Operand::Kind::Imm)
        fail(v.src, mnemonic + " installs a descriptor version in '" + name +
                        "', which a cp.async.bulk.tensor reads: the version must be an integer, which the kernel "
                        "turns into the address of that version's tensor (docs/hardware/README.md \"Tensor maps\")");
      if (spec.slotOf(v.imm) < 0) spec.versions.push_back(v.imm);
    };
    if (spec.tensorLoc >= 0 && (in.op == OpId::TensormapReplace || in.op == OpId::St))
      fail(in.src, mnemonic + " installs a descriptor in '" + name +
                       "', which a tensor store or reduction writes "
                       "through: the kernel encodes that map over '" +
                       name + "_tensor' only (one descriptor version)");
    switch (in.op) {
      case OpId::CpAsyncBulkTensor:
      case OpId::CpReduceAsyncBulkTensor:
      case OpId::CpAsyncBulkPrefetchTensor:
      case OpId::FenceProxyTmap: return;
      case OpId::TensormapCpFenceproxy: return;  // from a shared source (sharedMapSources)
      case OpId::TensormapReplace:
        if (!in.hasFlag("global_address")) {
          std::string field = "?";
          for (auto f : ptx::qualifierGroupValues("tmap_field"))
            if (in.hasFlag(f)) field = f;
          fail(in.src, "tensormap.replace." + field + " on '" + name +
                           "', which a cp.async.bulk.tensor reads: the stress kernel realises a descriptor version "
                           "as the tensor that the map's .global_address locates, so only "
                           "tensormap.replace.tile.global_address can install one on hardware");
        }
        return add(in.operands.back());
      case OpId::St:
        if (in.sem != ptx::Sem::None && in.sem != ptx::Sem::Weak)
          fail(in.src, "a " + std::string(ptx::toString(in.sem)) + " st to '" + name +
                           "', which holds a tensor map: a new descriptor is 128 bytes, written by weak stores on "
                           "the device, so only a weak st can stand for it");
        if (&op != &in.operands[0]) break;
        return add(in.operands.back());
      default: break;
    }
    fail(in.src, mnemonic + " accesses '" + name +
                     "', which holds a tensor map: on the device its cells are 128-byte CUtensorMaps, so only the "
                     "tensor copies, reductions and prefetches, tensormap.replace.tile.global_address, a weak st of "
                     "a descriptor version and fence.proxy.tensormap::generic can use it");
  }

  /// The tensor map held by global location l (nullptr: none).
  const TensorMapSpec* tensorMapAt(int l) const {
    auto it = tmapOf_.find(l);
    return it == tmapOf_.end() ? nullptr : &k_.tensorMaps[it->second];
  }

  // ---------------------------------------------------------------- emission helpers
  std::ostream& o() { return *out_; }
  /// GenOptions::threadSkewNs: sleep hash(CTA, warp or warpgroup, litmus thread, launch) % (N + 1) ns. The
  /// launch's part is the first role's column multiplier, which the host draws anew for every launch.
  void emitThreadSkew(int t) {
    if (opt_.threadSkewNs <= 0) return;
    o() << "  // thread skew: a pseudo-random sleep of 0.." << opt_.threadSkewNs << " ns, uniform in the "
        << (wg_ ? "warpgroup" : "warp") << "\n"
        << "  mov.u32 %r1, %ctaid.x;\n  mov.u32 %r2, %tid.x;\n  shr.u32 %r2, %r2, " << (wg_ ? 7 : 5) << ";\n"
        << "  mul.wide.u32 %rd1, %r1, 65536;\n  cvt.u64.u32 %rd2, %r2;\n  add.u64 %rd1, %rd1, %rd2;\n"
        << "  " << cfgLoad("%rd2", cfg::kRolePerm) << "\n  add.u64 %rd1, %rd1, %rd2;\n"
        << "  mul.lo.u64 %rd1, %rd1, -7046029254386353131;  // 0x9E3779B97F4A7C15\n"
        << "  add.u64 %rd1, %rd1, " << (static_cast<int64_t>(t) + 1) * 1000003 << ";\n"
        << "  shr.u64 %rd2, %rd1, 31;\n  xor.b64 %rd1, %rd1, %rd2;\n"
        << "  mul.lo.u64 %rd1, %rd1, -4658895280553007687;  // 0xBF58476D1CE4E5B9\n"
        << "  shr.u64 %rd2, %rd1, 29;\n  xor.b64 %rd1, %rd1, %rd2;\n"
        << "  rem.u64 %rd1, %rd1, " << opt_.threadSkewNs + 1 << ";\n  cvt.u32.u64 %r1, %rd1;\n"
        << "  nanosleep.u32 %r1;\n";
  }

  std::string cfgLoad(const std::string& dst, int index) {
    return "ld.global.u64 " + dst + ", [%cfg+" + std::to_string(index * 8) + "];";
  }

  void emitInit(std::ostringstream& s) {
    s << "// Writes the initial value of every global location into all instance cells.\n";
    s << ".visible .entry " << k_.initEntry << "(.param .u64 p_mem, .param .u64 p_cfg"
      << (k_.tensorMaps.empty() ? "" : std::string(", .param .u64 ") + tmap::kParam) << ")\n{\n";
    s << "  .reg .pred %p<2>;\n  .reg .b32 %r<6>;\n  .reg .b64 %rd<14>;\n";
    s << "  ld.param.u64 %rd1, [p_mem];\n  cvta.to.global.u64 %rd1, %rd1;\n";
    s << "  ld.param.u64 %rd2, [p_cfg];\n  cvta.to.global.u64 %rd2, %rd2;\n";
    if (!k_.tensorMaps.empty()) s << "  ld.param.u64 %rd10, [" << tmap::kParam << "];\n";
    s << "  mov.u32 %r1, %ctaid.x;\n  mov.u32 %r2, %ntid.x;\n  mov.u32 %r3, %tid.x;\n  mov.u32 %r4, %nctaid.x;\n";
    s << "  mad.lo.u32 %r5, %r1, %r2, %r3;\n  cvt.u64.u32 %rd3, %r5;\n  mul.wide.u32 %rd4, %r4, %r2;\n";
    s << "  ld.global.u64 %rd5, [%rd2+" << cfg::kInstances * 8 << "];\n";
    s << "  ld.global.u64 %rd6, [%rd2+" << cfg::kStride * 8 << "];\n";
    s << "$init_loop:\n  setp.ge.u64 %p1, %rd3, %rd5;\n  @%p1 bra $init_done;\n";
    for (size_t l = 0; l < k_.globals.size(); ++l) {
      s << "  ld.global.u64 %rd7, [%rd2+" << (cfg::kLocPerm + 3 * l + 2) * 8 << "];\n";
      s << "  mad.lo.u64 %rd8, %rd3, %rd6, %rd7;\n  add.u64 %rd8, %rd8, %rd1;\n";
      if (const TensorMapSpec* spec = tensorMapAt(static_cast<int>(l))) {
        // The cell's initial CUtensorMap (descriptor version versions[0]) from the tensor buffer.
        s << "  mad.lo.u64 %rd9, %rd3, " << tmap::recordBytes(k_.tensorSlots) << ", %rd10;\n";
        s << "  add.u64 %rd9, %rd9, " << tmap::mapOffset(spec->firstSlot) << ";\n";
        for (int b = 0; b < tmap::kMapBytes; b += 16)
          s << "  ld.v2.u64 {%rd12, %rd13}, [%rd9+" << b << "];\n  st.global.v2.u64 [%rd8+" << b
            << "], {%rd12, %rd13};\n";
        continue;
      }
      s << "  mov.u64 %rd9, " << k_.globals[l].init << ";\n";
      if (globalCell_ >= 8)
        s << "  st.global.u64 [%rd8], %rd9;\n";
      else
        s << "  cvt.u32.u64 %r1, %rd9;\n  st.global.u32 [%rd8], %r1;\n";
      for (int extra = 8; extra < globalCell_; extra += 8) s << "  st.global.u64 [%rd8+" << extra << "], 0;\n";
    }
    s << "  add.u64 %rd3, %rd3, %rd4;\n  bra $init_loop;\n$init_done:\n  ret;\n}\n\n";
  }

  /// Memory-stress loop on the scratch buffer (iterations and pattern from the config buffer).
  void emitStress(int itersIdx, int patternIdx) {
    std::string L = fresh("stress");
    o() << "  // memory stress (" << (itersIdx == cfg::kMemIters ? "stress warps" : "pre-stress") << ")\n";
    o() << "  " << cfgLoad("%sIt", itersIdx) << "\n";
    o() << "  setp.eq.u64 %ps0, %sIt, 0;\n  @%ps0 bra " << L << "_end;\n";
    o() << "  " << cfgLoad("%sPat", patternIdx) << "\n";
    o() << "  " << cfgLoad("%sNl", cfg::kTargetLines) << "\n";
    o() << "  " << cfgLoad("%sLw", cfg::kLineWords) << "\n";
    o() << "  " << cfgLoad("%sAs", cfg::kAssign) << "\n";
    o() << "  mov.u32 %r1, %ctaid.x;\n  mad.lo.u32 %r2, %r1, " << k_.blockDim / 32 << ", %warp;\n";
    o() << "  setp.ne.u64 %ps0, %sAs, 0;\n  selp.b32 %r2, %r1, %r2, %ps0;\n";
    o() << "  cvt.u64.u32 %sK, %r2;\n  rem.u64 %sK, %sK, %sNl;\n";
    o() << "  shl.b64 %sK, %sK, 3;\n  add.u64 %sK, %sK, " << cfg::kLines * 8 << ";\n  add.u64 %sK, %sK, %cfg;\n";
    o() << "  ld.global.u64 %sA, [%sK];\n";
    o() << "  cvt.u64.u32 %sK, %lane;\n  rem.u64 %sK, %sK, %sLw;\n  add.u64 %sA, %sA, %sK;\n";
    o() << "  shl.b64 %sA, %sA, 2;\n  add.u64 %sA, %sA, %scr;\n";
    o() << "  and.b64 %sK, %sPat, 1;\n  setp.ne.u64 %ps1, %sK, 0;\n";
    o() << "  and.b64 %sK, %sPat, 2;\n  setp.ne.u64 %ps2, %sK, 0;\n";
    o() << "  mov.u64 %sK, 0;\n";
    o() << L << ":\n  setp.ge.u64 %ps0, %sK, %sIt;\n  @%ps0 bra " << L << "_end;\n";
    o() << "  cvt.u32.u64 %r1, %sK;\n";
    o() << "  @%ps1 st.volatile.global.u32 [%sA], %r1;\n  @!%ps1 ld.volatile.global.u32 %r2, [%sA];\n";
    o() << "  @%ps2 st.volatile.global.u32 [%sA], %r1;\n  @!%ps2 ld.volatile.global.u32 %r2, [%sA];\n";
    o() << "  add.u64 %sK, %sK, 1;\n  bra " << L << ";\n" << L << "_end:\n";
  }

  /// Bank-conflict stress (lanes below bcLanes_ of a stress warp; iterations and pattern from the
  /// configuration buffer). Lane j accesses row j of the bank-conflict rows; in iteration k all lanes
  /// of the warp access word (c * cell / 4) mod 32 of their row, c = (k + warp) mod C over the C shared
  /// cells of the CTA: the bank of test cell c. Distinct rows, one bank: every access of the warp is a
  /// bcLanes_-way bank conflict in a bank that the test's shared accesses use.
  void emitBankConflict() {
    const int cells = static_cast<int>(shared_.size()) * slots_;
    std::string L = fresh("bank");
    o() << "  // bank-conflict stress: " << bcLanes_ << " lane(s) per stress warp, rows of 32 words at smem+"
        << bcOffset_ << "\n";
    o() << "  " << cfgLoad("%bIt", cfg::kBankIters) << "\n";
    o() << "  setp.eq.u64 %pb0, %bIt, 0;\n  @%pb0 bra " << L << "_end;\n";
    o() << "  " << cfgLoad("%bPat", cfg::kBankPattern) << "\n";
    o() << "  and.b64 %bK, %bPat, 1;\n  setp.ne.u64 %pb1, %bK, 0;\n";
    o() << "  and.b64 %bK, %bPat, 2;\n  setp.ne.u64 %pb2, %bK, 0;\n";
    o() << "  mad.lo.u32 %bRow, %lane, 128, %sbase;\n  add.u32 %bRow, %bRow, " << bcOffset_ << ";\n";
    o() << "  mov.u64 %bK, 0;\n";
    o() << L << ":\n  setp.ge.u64 %pb0, %bK, %bIt;\n  @%pb0 bra " << L << "_end;\n";
    o() << "  cvt.u32.u64 %r1, %bK;\n  add.u32 %r1, %r1, %warp;\n  rem.u32 %r1, %r1, " << cells << ";\n";
    o() << "  mul.lo.u32 %r1, %r1, " << sharedCell_ << ";\n  and.b32 %r1, %r1, 127;\n  add.u32 %bA, %bRow, %r1;\n";
    o() << "  @%pb1 st.volatile.shared::cta.u32 [%bA], %r1;\n  @!%pb1 ld.volatile.shared::cta.u32 %r2, [%bA];\n";
    o() << "  @%pb2 st.volatile.shared::cta.u32 [%bA], %r1;\n  @!%pb2 ld.volatile.shared::cta.u32 %r2, [%bA];\n";
    o() << "  add.u64 %bK, %bK, 1;\n  bra " << L << ";\n" << L << "_end:\n";
  }

  void emitBarrierAll() {
    if (k_.clustered)
      o() << "  barrier.cluster.arrive.release;\n  barrier.cluster.wait.acquire;\n";
    else
      o() << "  barrier.sync 0;\n";
  }

  /// The stress kernel of grid `grid` (0: Kernel::entry; 1: Kernel::dependentEntry, the grid-1 roles).
  void emitTest(std::ostringstream& s, int grid) {
    out_ = &s;
    kernelGrid_ = grid;
    const int W = k_.resultWords;
    const int roleBase = grid == 0 ? 0 : k_.primaryRoles;
    const int roleCount = grid == 0 ? k_.primaryRoles : k_.roles - k_.primaryRoles;
    s << "// The stress kernel" << (dependent_ ? grid == 0 ? " of the primary grid" : " of the dependent grid" : "")
      << ": " << k_.slotsPerCta << " instances per GPU cluster of " << k_.clusterDim << " CTA(s), " << roleCount
      << " role(s), " << k_.blockDim << " threads per CTA.\n";
    if (grid == 1)
      s << "// Launched after the primary kernel in its stream with programmatic stream serialization (PTX ISA 9.2\n"
           "// griddepcontrol): it may start once every CTA of the primary grid has executed\n"
           "// griddepcontrol.launch_dependents or exited; all its threads execute griddepcontrol.wait before the\n"
           "// epilogue, so that it completes after the primary grid and its last reporter classifies.\n";
    s << ".visible .entry " << (grid == 0 ? k_.entry : k_.dependentEntry)
      << "(.param .u64 p_mem, .param .u64 p_cfg, .param .u64 p_res, .param .u64 p_ctr, .param .u64 p_hist,"
         " .param .u64 p_samples, .param .u64 p_scratch";
    for (const auto& b : k_.bindings) s << ", .param .u64 " << b.param;
    if (k_.surfaceMap) s << ", .param .u64 " << surf::kMapParam;
    if (!k_.tensorMaps.empty()) s << ", .param .u64 " << tmap::kParam;
    s << ")\n";
    s << "  .maxntid " << k_.blockDim << ", 1, 1\n";
    if (k_.clustered) s << "  .explicitcluster\n  .reqnctapercluster " << k_.clusterDim << ", 1, 1\n";
    s << "{\n";
    if (k_.sharedBytes > 0)
      s << "  .shared .align " << (tensorCopy_ || wg_ ? 128 : 16) << " .b8 smem[" << k_.sharedBytes << "];\n";
    s << "  .reg .pred %p<8>;\n  .reg .pred %ps<3>;\n  .reg .pred %pt;\n  .reg .pred %pspin;\n";
    s << "  .reg .b32 %r<8>;\n  .reg .b32 %x<8>;\n  .reg .b64 %rd<16>;\n  .reg .b64 %y<8>;\n";
    s << "  .reg .b64 %mem, %cfg, %res, %ctr, %hist, %smp, %scr, %inst, %N, %Q, %sIt, %sPat, %sNl, %sLw, %sAs, %sK, "
         "%sA, %bound;\n  .reg .b64 %val<"
      << std::max<size_t>(1, k_.terms.size()) << ">;\n  .reg .b16 %rs0;\n";
    s << "  .reg .b32 %mytid, %warp, %lane, %rank, %gcl, %role, %qraw, %group, %wig, %sub, %rawSlot, %spin, %lt, "
         "%sbase, %bar;\n";
    for (size_t l = 0; l < k_.globals.size(); ++l) s << "  .reg .b64 %ga" << l << ";\n";
    for (const auto& [l, b] : surBind_)
      s << "  .reg .b64 %hs" << l << ";\n  .reg .b32 %sx" << l << ", %sy" << l << ";\n";
    for (const auto& [l, b] : texBind_) s << "  .reg .b64 %ht" << l << ";\n  .reg .b32 %ti" << l << ";\n";
    if (k_.surfaceMap) s << "  .reg .b64 %smap;\n";
    if (wg_) s << "  .reg .pred %plead;  // the warpgroup's thread 0\n  .reg .pred %ptimed;\n  .reg .f32 %wfs;\n";
    if (!k_.tensorMaps.empty()) s << "  .reg .b64 %tbuf;\n";
    for (const auto& spec : k_.tensorMaps) s << "  .reg .b64 %tr" << spec.globalLoc << ";\n";
    if (bcLanes_ > 0) s << "  .reg .b64 %bIt, %bPat, %bK;\n  .reg .b32 %bRow, %bA;\n  .reg .pred %pb<3>;\n";
    for (size_t l = 0; l < shared_.size(); ++l) {
      s << "  .reg .b32 %sa" << l << ";\n";
      for (const auto& [cta, rank] : ctaRank_) s << "  .reg .b32 %sr" << l << "_" << cta << ";\n";
    }
    for (size_t t = 0; t < test_.threads.size(); ++t) {
      if (!inKernel(static_cast<int>(t))) continue;
      std::set<std::string> regs;
      for (const auto& st : test_.threads[t].code)
        if (st.instr)
          for (const auto& op : st.instr->operands) {
            if (op.kind == Operand::Kind::Reg) regs.insert(op.name);
            for (const auto& e : op.elems)
              if (e.kind == Operand::Kind::Reg) regs.insert(e.name);
          }
      for (const auto& ri : test_.regInits)
        if (ri.thread == static_cast<int>(t)) regs.insert(ri.reg);
      for (const auto& term : k_.terms)
        if (term.source == TermSource::Register && term.term.thread == static_cast<int>(t)) regs.insert(term.term.reg);
      for (const auto& p : preds_[t]) regs.insert(p);
      for (const auto& r : regs) s << "  .reg .b64 " << valueReg(static_cast<int>(t), r) << ";\n";
      for (const auto& r : preds_[t]) s << "  .reg .pred " << predReg(static_cast<int>(t), r) << ";\n";
      for (const auto& [r, m] : mapaRegs_[t])
        if (m.sharedCluster) s << "  .reg .b32 " << mapaAddrReg(static_cast<int>(t), r) << ";\n";
      for (const auto& r : b128_[t]) s << "  .reg .b128 " << wideReg(static_cast<int>(t), r) << ";\n";
      for (const auto& a : wgmmaAccumulators(static_cast<int>(t))) {  // four .f32 registers each (emit/Wgmma.cpp)
        const std::string r0 = wgmmaAccReg(static_cast<int>(t), a, 0);
        s << "  .reg .f32 " << r0.substr(0, r0.size() - 1) << "<4>;\n";
      }
    }
    s << "\n  ld.param.u64 %mem, [p_mem];\n  cvta.to.global.u64 %mem, %mem;\n";
    for (const char* p : {"cfg", "res", "ctr", "hist", "smp", "scr"}) {
      std::string param = std::string(p) == "smp"   ? "p_samples"
                          : std::string(p) == "scr" ? "p_scratch"
                                                    : "p_" + std::string(p);
      s << "  ld.param.u64 %" << p << ", [" << param << "];\n  cvta.to.global.u64 %" << p << ", %" << p << ";\n";
    }
    // Surface / texture object handles (opaque .u64 values, used as the surface/texture operand).
    for (const auto& [l, b] : surBind_) s << "  ld.param.u64 %hs" << l << ", [" << k_.bindings[b].param << "];\n";
    for (const auto& [l, b] : texBind_) s << "  ld.param.u64 %ht" << l << ", [" << k_.bindings[b].param << "];\n";
    if (k_.surfaceMap) s << "  ld.param.u64 %smap, [" << surf::kMapParam << "];\n  cvta.to.global.u64 %smap, %smap;\n";
    if (!k_.tensorMaps.empty()) s << "  ld.param.u64 %tbuf, [" << tmap::kParam << "];\n";  // generic
    s << "  mov.u32 %mytid, %tid.x;\n  shr.u32 %warp, %mytid, 5;\n  and.b32 %lane, %mytid, 31;\n  mov.s32 %lt, -1;\n";
    if (wg_) s << "  and.b32 %r1, %mytid, " << 32 * kWarpgroupWarps - 1 << ";\n  setp.eq.u32 %plead, %r1, 0;\n";
    if (k_.clustered)
      s << "  mov.u32 %rank, %cluster_ctarank;\n  mov.u32 %gcl, %clusterid.x;\n";
    else
      s << "  mov.u32 %rank, 0;\n  mov.u32 %gcl, %ctaid.x;\n";
    s << "  rem.u32 %role, %gcl, " << roleCount << ";\n  div.u32 %qraw, %gcl, " << roleCount << ";\n";
    if (roleBase > 0) s << "  add.u32 %role, %role, " << roleBase << ";  // the roles of the dependent grid\n";
    s << "  " << cfgLoad("%N", cfg::kInstances) << "\n  " << cfgLoad("%Q", cfg::kColumns) << "\n  "
      << cfgLoad("%bound", cfg::kSpinBound) << "\n";
    if (!shared_.empty()) s << "  mov.u32 %sbase, smem;\n";
    // Shared locations and mbarriers: one cell per slot.
    bool anyMbar = false;
    for (size_t l = 0; l < shared_.size(); ++l) {
      const auto& sl = shared_[l];
      std::string L = fresh("shinit");
      s << "  // shared location " << sl.name << (sl.mbarrier ? " (mbarrier)" : "") << "\n";
      s << "  mov.u32 %r1, %mytid;\n"
        << L << ":\n  setp.ge.u32 %p1, %r1, " << slots_ << ";\n  @%p1 bra " << L << "_end;\n";
      s << "  mad.lo.u32 %r2, %r1, " << sharedCell_ << ", %sbase;\n  add.u32 %r2, %r2, " << l * slots_ * sharedCell_
        << ";\n";
      constexpr int kUnrolled = 128;  // larger cells (wgmma tiles) are cleared by a loop
      for (int b = 0; b < std::min(sharedCell_, kUnrolled); b += 8)
        s << "  st.shared::cta.u64 [%r2+" << b << "], " << (b == 0 && !sl.mbarrier ? sl.init : 0) << ";\n";
      if (sharedCell_ > kUnrolled) {
        const std::string Z = fresh("shclear");
        s << "  mov.u32 %r3, " << kUnrolled << ";\n"
          << Z << ":\n  setp.ge.u32 %p2, %r3, " << sharedCell_ << ";\n  @%p2 bra " << Z
          << "_end;\n  add.u32 %r4, %r2, %r3;\n  st.shared::cta.u64 [%r4], 0;\n"
          << "  add.u32 %r3, %r3, 8;\n  bra " << Z << ";\n"
          << Z << "_end:\n";
      }
      if (sl.mbarrier) {
        anyMbar = true;
        s << "  mbarrier.init.shared::cta.b64 [%r2], " << sl.mbarCount << ";\n";
      }
      if (smapOf_.count(static_cast<int>(l))) emitSharedMapInit(static_cast<int>(l));
      s << "  add.u32 %r1, %r1, " << k_.blockDim << ";\n  bra " << L << ";\n" << L << "_end:\n";
    }
    if (anyMbar) s << "  fence.mbarrier_init.release.cluster;\n";
    emitBarrierAll();
    // Role dispatch.
    s << "  setp.ge.u32 %p1, %warp, " << nw_ * unitWarps_ * opt_.groupsPerBlock << ";\n  @%p1 bra $STRESS;\n";
    if (wg_) {
      // Warpgroup kernel: warps 4w..4w+3 (an aligned warpgroup) run litmus thread w of the instance group,
      // all 128 threads for the same instance.
      s << "  shr.u32 %r2, %warp, 2;\n  div.u32 %group, %r2, " << nw_ << ";\n  rem.u32 %wig, %r2, " << nw_ << ";\n";
      s << "  mov.u32 %sub, 0;\n  mov.u32 %r1, 0;\n";
    } else {
      s << "  div.u32 %group, %warp, " << nw_ << ";\n  rem.u32 %wig, %warp, " << nw_ << ";\n";
      int shift = 0;
      while ((1 << shift) < laneStride_) ++shift;
      s << "  shr.u32 %sub, %lane, " << shift << ";\n  and.b32 %r1, %lane, " << laneStride_ - 1 << ";\n";
    }
    s << "  mad.lo.u32 %rawSlot, %group, " << laneStride_ << ", %r1;\n";
    emitInstanceOf("%rawSlot", "%inst");
    for (size_t t = 0; t < test_.threads.size(); ++t) {
      if (!inKernel(static_cast<int>(t))) continue;
      const auto& p = places_[t];
      s << "  setp.eq.u32 %p1, %role, " << p.role << ";\n  setp.eq.and.u32 %p1, %rank, " << p.rank << ", %p1;\n";
      s << "  setp.eq.and.u32 %p1, %wig, " << p.wig << ", %p1;\n  setp.eq.and.u32 %p1, %sub, " << p.sub << ", %p1;\n";
      s << "  @%p1 bra $T" << t << ";\n";
    }
    s << "  bra $STRESS;\n";
    for (size_t t = 0; t < test_.threads.size(); ++t)
      if (inKernel(static_cast<int>(t))) emitThread(static_cast<int>(t));
    // Stress path.
    s << "$STRESS:\n";
    if (bcLanes_ > 0) {
      s << "  setp.ge.u32 %p1, %lane, " << bcLanes_ << ";\n  @%p1 bra $MEMSTRESS;\n";
      emitBankConflict();
      s << "  bra $STRESS_DONE;\n$MEMSTRESS:\n";
    }
    emitStress(cfg::kMemIters, cfg::kMemPattern);
    if (bcLanes_ > 0) s << "$STRESS_DONE:\n";
    if (k_.clustered)
      for (int i = 0; i < (dependent_ ? arrives_[grid] : clusterBarriers_); ++i)
        s << "  barrier.cluster.arrive.relaxed;\n  barrier.cluster.wait.acquire;\n";
    s << "$EPI:\n";
    if (grid == 1) s << "  griddepcontrol.wait;  // the primary grid has completed: it reported first\n";
    emitBarrierAll();
    s << "  setp.lt.s32 %p1, %lt, 0;\n  @%p1 bra $EXIT;\n";
    s << "  mad.lo.u64 %rd5, %inst, " << W * 8 << ", %res;\n";
    // Owners publish the final values of observed shared locations.
    for (const auto& term : k_.terms) {
      if (term.source != TermSource::SharedLoc) continue;
      const auto& loc = term.term.loc;
      int l = locs_.at(loc.name).index;
      int ownerCta = loc.cta >= 0               ? loc.cta
                     : shared_[l].ownerCta >= 0 ? shared_[l].ownerCta
                                                : test_.threads[0].where.cta;
      int owner = -1;
      for (size_t t = 0; t < test_.threads.size() && owner < 0; ++t)
        if (test_.threads[t].where.cta == ownerCta) owner = static_cast<int>(t);
      if (owner < 0) fail({test_.file, 1, 1}, "no thread runs in the CTA owning '" + term.label + "'");
      std::string L = fresh("own");
      s << "  setp.ne.s32 %p1, %lt, " << owner << ";\n  @%p1 bra " << L << ";\n";
      s << "  mad.lo.u32 %r1, %rawSlot, " << sharedCell_ << ", %sbase;\n  add.u32 %r1, %r1, "
        << l * slots_ * sharedCell_ << ";\n";
      s << "  ld.shared::cta.u64 %rd6, [%r1];\n";
      if (!shared_[l].mbarrier) s << "  and.b64 %rd6, %rd6, 0xffffffff;\n";
      s << "  st.global.u64 [%rd5+" << term.resultIndex * 8 << "], %rd6;\n" << L << ":\n";
    }
    // Done counter; the last reporter classifies.
    s << "  add.u64 %rd1, %inst, %N;\n  shl.b64 %rd1, %rd1, 2;\n  add.u64 %rd1, %rd1, %ctr;\n";
    s << "  atom.acq_rel.gpu.global.add.u32 %r1, [%rd1], 1;\n  setp.ne.u32 %p1, %r1, " << k_.reporters - 1
      << ";\n  @%p1 bra $EXIT;\n";
    s << "  " << cfgLoad("%rd7", cfg::kOtherBucket) << "\n";
    s << "  ld.relaxed.gpu.global.u64 %rd2, [%rd5+" << (W - 1) * 8
      << "];\n  setp.ne.u64 %p1, %rd2, 0;\n  @%p1 bra $TIMEDOUT;\n";
    for (size_t j = 0; j < k_.terms.size(); ++j) {
      const auto& term = k_.terms[j];
      if (term.source == TermSource::GlobalLoc) {
        emitGlobalAddr(term.globalLoc, "%rd3");
        if (globalCell_ >= 8)
          s << "  ld.relaxed.gpu.global.u64 %val" << j << ", [%rd3];\n";
        else
          s << "  ld.relaxed.gpu.global.u32 %r2, [%rd3];\n  cvt.u64.u32 %val" << j << ", %r2;\n";
      } else {
        s << "  ld.relaxed.gpu.global.u64 %val" << j << ", [%rd5+" << term.resultIndex * 8 << "];\n";
      }
    }
    s << "  mov.u64 %rd8, 0;\n";
    for (size_t j = 0; j < k_.terms.size(); ++j) {
      std::string L = fresh("cls");
      s << "  " << cfgLoad("%rd9", cfg::kTermCount + static_cast<int>(j)) << "\n  mov.u64 %rd10, 0;\n";
      s << "  add.u64 %rd11, %cfg, " << (cfg::kTermValues + cfg::kMaxCandidates * j) * 8 << ";\n";
      s << L << ":\n  setp.ge.u64 %p1, %rd10, %rd9;\n  @%p1 bra $OTHER;\n";
      s << "  ld.global.u64 %rd12, [%rd11];\n  setp.eq.u64 %p1, %rd12, %val" << j << ";\n  @%p1 bra " << L
        << "_found;\n";
      s << "  add.u64 %rd10, %rd10, 1;\n  add.u64 %rd11, %rd11, 8;\n  bra " << L << ";\n";
      s << L << "_found:\n  mad.lo.u64 %rd8, %rd8, %rd9, %rd10;\n";
    }
    s << "  shl.b64 %rd8, %rd8, 3;\n  add.u64 %rd8, %rd8, %hist;\n  red.relaxed.gpu.global.add.u64 [%rd8], 1;\n  bra "
         "$EXIT;\n";
    s << "$TIMEDOUT:\n  add.u64 %rd8, %rd7, 1;\n  shl.b64 %rd8, %rd8, 3;\n  add.u64 %rd8, %rd8, %hist;\n"
         "  red.relaxed.gpu.global.add.u64 [%rd8], 1;\n  bra $EXIT;\n";
    s << "$OTHER:\n  shl.b64 %rd8, %rd7, 3;\n  add.u64 %rd8, %rd8, %hist;\n  red.relaxed.gpu.global.add.u64 [%rd8], "
         "1;\n";
    const size_t rec = k_.terms.size();
    s << "  atom.relaxed.gpu.global.add.u64 %rd9, [%smp], 1;\n  setp.ge.u64 %p1, %rd9, " << cfg::kSampleCap
      << ";\n  @%p1 bra $EXIT;\n";
    s << "  mad.lo.u64 %rd9, %rd9, " << std::max<size_t>(1, rec) * 8 << ", %smp;\n";
    for (size_t j = 0; j < rec; ++j) s << "  st.global.u64 [%rd9+" << 8 + j * 8 << "], %val" << j << ";\n";
    s << "$EXIT:\n  ret;\n}\n";
  }

  /// %dst (.b64) = the instance that slot `slot` (.b32) of the executing GPU cluster hosts (%role, %qraw):
  /// ((qraw * mul + off) % Q) * S + (slot + slotOff) % S, the role's permutation from the configuration
  /// buffer (cfg::kRolePerm, cfg::kSlotOff). Uses %rd1..%rd4.
  void emitInstanceOf(const std::string& slot, const std::string& dst) {
    o() << "  mul.wide.u32 %rd1, %role, 16;\n  add.u64 %rd1, %rd1, %cfg;\n";
    o() << "  ld.global.u64 %rd2, [%rd1+" << cfg::kRolePerm * 8 << "];\n  ld.global.u64 %rd3, [%rd1+"
        << (cfg::kRolePerm + 1) * 8 << "];\n";
    o() << "  cvt.u64.u32 %rd4, %qraw;\n  mad.lo.u64 %rd4, %rd4, %rd2, %rd3;\n  rem.u64 %rd4, %rd4, %Q;\n";
    o() << "  mul.wide.u32 %rd1, %role, 8;\n  add.u64 %rd1, %rd1, %cfg;\n  ld.global.u64 %rd2, [%rd1+"
        << cfg::kSlotOff * 8 << "];\n";
    o() << "  cvt.u64.u32 %rd3, " << slot << ";\n  add.u64 %rd3, %rd3, %rd2;\n  rem.u64 %rd3, %rd3, " << slots_
        << ";\n";
    o() << "  mad.lo.u64 " << dst << ", %rd4, " << slots_ << ", %rd3;\n";
  }

  /// Prologue: the CUtensorMap that shared cell %r2 (slot %r1) of shared source l of tensormap.cp_fenceproxy
  /// (smapOf_) starts with: the map of l's initial value in the record of the slot's instance's cell of the
  /// map location, copied from the tensor buffer (generic loads, shared stores: the generic proxy, in which
  /// tensormap.replace and tensormap.cp_fenceproxy access it).
  void emitSharedMapInit(int l) {
    const TensorMapSpec& spec = k_.tensorMaps[smapOf_.at(l)];
    const int slot = spec.slotOf(shared_[l].init);
    o() << "  // '" << shared_[l].name << "' starts with the CUtensorMap of version " << shared_[l].init << " of '"
        << k_.globals[spec.globalLoc].name << "'\n";
    emitInstanceOf("%r1", "%rd5");
    const int m = spec.globalLoc;
    o() << "  ld.global.u64 %rd2, [%cfg+" << (cfg::kLocPerm + 3 * m) * 8 << "];\n  ld.global.u64 %rd3, [%cfg+"
        << (cfg::kLocPerm + 3 * m + 1) * 8 << "];\n";
    o() << "  mad.lo.u64 %rd5, %rd5, %rd2, %rd3;\n  rem.u64 %rd5, %rd5, %N;\n";
    o() << "  mad.lo.u64 %rd5, %rd5, " << tmap::recordBytes(k_.tensorSlots) << ", %tbuf;\n";
    for (int b = 0; b < tmap::kMapBytes; b += 16)
      o() << "  ld.v2.u64 {%rd12, %rd13}, [%rd5+" << tmap::mapOffset(slot) + b << "];\n  st.shared::cta.v2.u64 [%r2+"
          << b << "], {%rd12, %rd13};\n";
  }

  /// %dst = address of global location l's cell for %inst. With `proxyCoords`, also the cell's
  /// surface coordinates (%sx<l>, %sy<l> from the surface map), texture element (%ti<l>) and tensor
  /// record (%tr<l>, the generic address of the cell's record in the tensor buffer).
  void emitGlobalAddr(int l, const std::string& dst, bool proxyCoords = false) {
    o() << "  ld.global.u64 %y1, [%cfg+" << (cfg::kLocPerm + 3 * l) * 8 << "];\n";
    o() << "  ld.global.u64 %y2, [%cfg+" << (cfg::kLocPerm + 3 * l + 1) * 8 << "];\n";
    o() << "  ld.global.u64 %y3, [%cfg+" << (cfg::kLocPerm + 3 * l + 2) * 8 << "];\n";
    o() << "  ld.global.u64 %y4, [%cfg+" << cfg::kStride * 8 << "];\n";
    o() << "  mad.lo.u64 %y5, %inst, %y1, %y2;\n  rem.u64 %y5, %y5, %N;\n";
    if (proxyCoords && surBind_.count(l))
      o() << "  mad.lo.u64 %y6, %y5, 8, %smap;\n  ld.global.v2.u32 {%sx" << l << ", %sy" << l << "}, [%y6];\n";
    if (proxyCoords && texBind_.count(l))
      o() << "  mul.lo.u64 %y6, %y5, %y4;\n  shr.u64 %y6, %y6, 2;\n  cvt.u32.u64 %ti" << l << ", %y6;\n";
    if (proxyCoords && tmapOf_.count(l))
      o() << "  mad.lo.u64 %tr" << l << ", %y5, " << tmap::recordBytes(k_.tensorSlots) << ", %tbuf;\n";
    o() << "  mad.lo.u64 %y5, %y5, %y4, %y3;\n";
    o() << "  add.u64 " << dst << ", %y5, %mem;\n";
  }

  // ---------------------------------------------------------------- litmus threads
  emit::Address address(int t, const Instr& in, const Operand& op) {
    litmus::LocRef ref = op.loc;
    int64_t off = op.kind == Operand::Kind::Addr ? op.imm : 0;
    if (!op.baseReg.empty() && mapaRegs_[t].count(op.baseReg)) {
      // The address that the run-time mapa wrote into the register: a .shared::cluster address is used as
      // a 32-bit one (the register's current value, converted now), a generic one as is.
      const MapaReg& m = mapaRegs_[t].at(op.baseReg);
      const std::string offs = off ? (off > 0 ? "+" : "") + std::to_string(off) : "";
      if (!m.sharedCluster && in.space != Space::Generic)
        fail(op.src, "'" + op.baseReg + "' holds the generic address of a generic `mapa`: access it generically");
      if (!m.sharedCluster) return {"[" + valueReg(t, op.baseReg) + offs + "]", Space::Generic};
      if (in.space != Space::SharedCluster && in.space != Space::Generic)
        fail(op.src, "'" + op.baseReg +
                         "' holds a .shared::cluster address (`mapa.shared::cluster`): access it in "
                         "the .shared::cluster state space");
      const std::string a32 = mapaAddrReg(t, op.baseReg);
      o() << "  cvt.u32.u64 " << a32 << ", " << valueReg(t, op.baseReg) << ";\n";
      return {"[" + a32 + offs + "]", Space::SharedCluster};
    }
    if (!op.baseReg.empty()) {
      auto it = addrRegs_[t].find(op.baseReg);
      if (it == addrRegs_[t].end())
        fail(op.src, "address register '" + op.baseReg + "' does not hold a declared location's address (only `P" +
                         std::to_string(t) + ":" + op.baseReg + " = loc` initialisations are supported on hardware)");
      ref = it->second;
    }
    auto it = locs_.find(ref.name);
    if (it == locs_.end()) fail(op.src, "unknown location '" + ref.name + "'");
    std::string offs = off ? (off > 0 ? "+" : "") + std::to_string(off) : "";
    const auto& tgt = it->second;
    if (!tgt.shared) return {"[%ga" + std::to_string(tgt.index) + offs + "]", Space::Global};
    const int myCta = test_.threads[t].where.cta;
    int cta = ref.cta >= 0 ? ref.cta : shared_[tgt.index].ownerCta >= 0 ? shared_[tgt.index].ownerCta : myCta;
    if (cta == myCta)
      return {"[%sa" + std::to_string(tgt.index) + offs + "]",
              in.space == Space::SharedCluster ? Space::SharedCluster : Space::SharedCta};
    if (!ctaCluster_.count(cta) || ctaCluster_.at(cta) != ctaCluster_.at(myCta))
      fail(op.src, "'" + ref.name + "@cta" + std::to_string(cta) + "' is not in the accessing thread's cluster");
    return {"[%sr" + std::to_string(tgt.index) + "_" + std::to_string(cta) + offs + "]", Space::SharedCluster};
  }

  /// The generic address of global location operand `op` (cvta written now into %y6): "[%y6+off]".
  std::string genericAddress(int t, const Instr& in, const Operand& op) {
    auto a = address(t, in, op);
    if (a.space != Space::Global)
      fail(op.src, "'" + (op.baseReg.empty() ? op.loc.name : op.baseReg) + "' must be a global location here");
    const auto [reg, offset] = a.split();
    o() << "  cvta.global.u64 %y6, " << reg << ";\n";
    return "[%y6" + offset + "]";
  }

  emit::TensorMapRef tensorMapRef(const Operand& op) const {
    if (!op.baseReg.empty() || !locs_.count(op.loc.name)) return {};
    if (const LocTarget& target = locs_.at(op.loc.name); target.shared) {
      // A shared source of tensormap.cp_fenceproxy holds a map of the map it is copied into (smapOf_).
      auto it = smapOf_.find(target.index);
      if (it == smapOf_.end()) return {};
      const TensorMapSpec& spec = k_.tensorMaps[it->second];
      return {&spec, "%tr" + std::to_string(spec.globalLoc), k_.tensorSlots};
    }
    const int l = locs_.at(op.loc.name).index;
    const TensorMapSpec* spec = tensorMapAt(l);
    if (spec == nullptr) return {};
    return {spec, "%tr" + std::to_string(l), k_.tensorSlots};
  }

  int64_t specialValue(int t, const Operand& op) {
    const auto& th = test_.threads[t];
    const auto& p = places_[t];
    const std::string& n = op.name;
    if (n == "%tid.x") return p.ctaThreads > 1 ? p.ctaIndexInCta : 0;
    if (n == "%laneid") return p.sub;  // the litmus lane (lowering: the position among the warp's threads)
    if (n == "%tid.y" || n == "%tid.z" || n == "%ctaid.y" || n == "%ctaid.z") return 0;
    if (n == "%ctaid.x") return th.where.cta;
    if (n == "%cluster_ctaid.x" || n == "%cluster_ctarank") return ctaRank_.at(th.where.cta);
    if (n == "%clusterid.x") return th.where.cluster;
    if (n == "%cluster_nctarank" || n == "%cluster_nctaid.x") {
      int c = 0;
      for (const auto& [cta, cl] : ctaCluster_) c += cl == roleKey(th.where) ? 1 : 0;
      return c;
    }
    fail(op.src, "special register '" + n + "' is not supported by the stress kernel");
  }

  /// A source value of `bits` width (32 or 64); emits a conversion if needed.
  std::string src(int t, const Operand& op, int bits, int& tmp) {
    switch (op.kind) {
      case Operand::Kind::Imm: return std::to_string(op.imm);
      case Operand::Kind::Special: return std::to_string(specialValue(t, op));
      case Operand::Kind::Reg: {
        if (bits == 64) return valueReg(t, op.name);
        std::string x = "%x" + std::to_string(tmp++ % 8);
        o() << "  cvt.u32.u64 " << x << ", " << valueReg(t, op.name) << ";\n";
        return x;
      }
      default: fail(op.src, "unexpected operand kind for a value");
    }
  }

  void emitThread(int t) {
    const auto& th = test_.threads[t];
    o() << "$T" << t << ":  // litmus thread " << th.name << "\n  mov.s32 %lt, " << t << ";\n";
    // Location addresses.
    std::set<int> globalsUsed, sharedUsed;
    std::set<std::pair<int, int>> remote;
    auto noteLoc = [&](const litmus::LocRef& ref) {
      auto it = locs_.find(ref.name);
      if (it == locs_.end()) return;
      if (!it->second.shared) {
        globalsUsed.insert(it->second.index);
        return;
      }
      sharedUsed.insert(it->second.index);
      int cta = ref.cta >= 0 ? ref.cta : shared_[it->second.index].ownerCta;
      if (cta >= 0 && cta != th.where.cta) remote.insert({it->second.index, cta});
    };
    for (const auto& st : th.code)
      if (st.instr)
        for (const auto& op : st.instr->operands)
          if (op.kind == Operand::Kind::Addr || op.kind == Operand::Kind::Loc) {
            if (!op.baseReg.empty()) {
              auto it = addrRegs_[t].find(op.baseReg);
              if (it != addrRegs_[t].end()) noteLoc(it->second);
            } else {
              noteLoc(op.loc);
            }
          }
    for (const auto& [r, ref] : addrRegs_[t]) noteLoc(ref);
    // A shared source of tensormap.cp_fenceproxy: tensormap.replace names a box of its map's record (%tr).
    for (int l : sharedUsed)
      if (smapOf_.count(l)) globalsUsed.insert(k_.tensorMaps[smapOf_.at(l)].globalLoc);
    for (int l : globalsUsed) emitGlobalAddr(l, "%ga" + std::to_string(l), true);
    // The maps this thread copies through were written by ptxmm_init (generic stores, an earlier
    // kernel): the tensormap proxy is not acquired at kernel start (PTX ISA 9.2 §8.9.4), so the thread
    // acquires them, as the model's initial descriptor is visible to every proxy.
    std::set<int> copiedMaps;
    for (const auto& st : th.code)
      if (st.instr && tensorOp(st.instr->op))
        if (const Operand* m = tensorMapOperand(*st.instr)) copiedMaps.insert(locs_.at(m->loc.name).index);
    if (opt_.mapAcquireAtStart)
      for (int l : copiedMaps)
        o() << "  cvta.global.u64 %y6, %ga" << l << ";\n  fence.proxy.tensormap::generic.acquire.gpu [%y6], 128;\n";
    for (int l : sharedUsed)
      o() << "  mad.lo.u32 %sa" << l << ", %rawSlot, " << sharedCell_ << ", %sbase;\n  add.u32 %sa" << l << ", %sa" << l
          << ", " << l * slots_ * sharedCell_ << ";\n";
    for (const auto& [l, cta] : remote) {
      if (!sharedUsed.count(l))
        o() << "  mad.lo.u32 %sa" << l << ", %rawSlot, " << sharedCell_ << ", %sbase;\n  add.u32 %sa" << l << ", %sa"
            << l << ", " << l * slots_ * sharedCell_ << ";\n";
      o() << "  mapa.shared::cluster.u32 %sr" << l << "_" << cta << ", %sa" << l << ", " << ctaRank_.at(cta) << ";\n";
    }
    // Registers: 0, or their initial value / address.
    std::set<std::string> declared;
    for (const auto& st : th.code)
      if (st.instr)
        for (const auto& op : st.instr->operands)
          if (op.kind == Operand::Kind::Reg) declared.insert(op.name);
    for (const auto& term : k_.terms)
      if (term.source == TermSource::Register && term.term.thread == t) declared.insert(term.term.reg);
    for (const auto& r : declared) o() << "  mov.u64 " << valueReg(t, r) << ", 0;\n";
    for (const auto& ri : test_.regInits) {
      if (ri.thread != t) continue;
      if (ri.addressOf) {
        const auto& tgt = locs_.at(ri.addressOf->name);
        if (tgt.shared)
          o() << "  cvt.u64.u32 " << valueReg(t, ri.reg) << ", %sa" << tgt.index << ";\n";
        else
          o() << "  mov.u64 " << valueReg(t, ri.reg) << ", %ga" << tgt.index << ";\n";
      } else {
        o() << "  mov.u64 " << valueReg(t, ri.reg) << ", " << ri.value << ";\n";
      }
    }
    // wgmma accumulators start at 0, before the litmus code: no register access between its wgmma.fence and
    // a wgmma.mma_async (PTX ISA 9.2 §9.7.15.7.1).
    for (const auto& a : wgmmaAccumulators(t))
      for (int i = 0; i < 4; ++i) o() << "  mov.f32 " << wgmmaAccReg(t, a, i) << ", 0f00000000;\n";
    emitStress(cfg::kPreIters, cfg::kPrePattern);
    // Start barrier (bounded).
    std::string L = fresh("start");
    o() << "  " << cfgLoad("%rd1", cfg::kStartBarrier) << "\n  setp.eq.u64 %p1, %rd1, 0;\n  @%p1 bra " << L
        << "_end;\n";
    // Only the threads of one kernel align: a dependent grid starts after the primary grid's launch_dependents.
    int aligned = 0;
    for (size_t u = 0; u < test_.threads.size(); ++u) aligned += inKernel(static_cast<int>(u)) ? 1 : 0;
    if (kernelGrid_ == 1)
      o() << "  add.u64 %rd1, %inst, %N;\n  add.u64 %rd1, %rd1, %N;  // the dependent grid's start counter\n"
          << "  shl.b64 %rd1, %rd1, 2;\n";
    else
      o() << "  shl.b64 %rd1, %inst, 2;\n";
    o() << "  add.u64 %rd1, %rd1, %ctr;\n  " << (wg_ ? "@%plead " : "")
        << "red.relaxed.gpu.global.add.u32 [%rd1], 1;\n  mov.u64 %rd2, 0;\n";
    o() << L << ":\n  ld.relaxed.gpu.global.u32 %r1, [%rd1];\n  setp.ge.u32 %p1, %r1, " << aligned << ";\n  @%p1 bra "
        << L << "_end;\n";
    o() << "  add.u64 %rd2, %rd2, 1;\n  setp.lt.u64 %p1, %rd2, %bound;\n  @%p1 bra " << L << ";\n" << L << "_end:\n";
    o() << "  mov.u32 %spin, 0;\n  cvt.u32.u64 %r7, %bound;\n";
    if (wg_) o() << "  setp.ne.u32 %ptimed, %spin, %spin;\n";
    emitThreadSkew(t);
    // The code.
    std::map<std::string, size_t> labelPos;
    for (size_t i = 0; i < th.code.size(); ++i)
      if (!th.code[i].label.empty()) labelPos[th.code[i].label] = i;
    ThreadCode code(*this, t, labelPos);
    // wgmma accumulators whose wgmma.mma_async precedes in program order with no `wgmma.wait_group 0` since: an
    // instruction naming one reads the .f32 accumulator itself (converted first, as at the wait), so that an
    // access before the wait (undefined, PTX ISA 9.2 §9.7.15.7.3) is the hardware's, not a stale litmus register.
    std::set<std::string> pendingAcc;
    for (size_t i = 0; i < th.code.size(); ++i) {
      if (th.code[i].instr && wg_) {
        const Instr& in = *th.code[i].instr;
        if (in.op == OpId::WgmmaMmaAsync) {
          if (!in.operands.empty() && emit::wgmmaAccumulator(in).kind == Operand::Kind::Reg)
            pendingAcc.insert(emit::wgmmaAccumulator(in).name);
        } else if (in.op == OpId::WgmmaWait) {
          if (!in.operands.empty() && in.operands[0].kind == Operand::Kind::Imm && in.operands[0].imm == 0)
            pendingAcc.clear();
        } else if (ptx::opInfo(in.op).family != OpFamily::WgmmaSync) {
          std::set<std::string> named;
          for (const auto& op : in.operands) {
            if (op.kind == Operand::Kind::Reg) named.insert(op.name);
            for (const auto& e : op.elems)
              if (e.kind == Operand::Kind::Reg) named.insert(e.name);
          }
          for (const auto& a : pendingAcc)
            if (named.count(a))
              o() << "  mul.f32 %wfs, " << wgmmaAccReg(t, a, 0) << ", " << wgmma::kScaleToInt
                  << ";  // read before the wait\n  cvt.rzi.s64.f32 " << valueReg(t, a) << ", %wfs;\n";
        }
      }
      const auto& st = th.code[i];
      if (!st.label.empty()) {
        o() << "$L" << t << "_" << sanitize(st.label) << ":\n";
        continue;
      }
      if (!st.instr) continue;
      code.pos = i;
      emit::Writer w(code, *st.instr);
      if (wg_ && warpgroupRole(*st.instr) == WarpgroupRole::Leader) {
        const std::string skip = fresh("lead");
        o() << "  @!%plead bra " << skip << ";  // the warpgroup's thread 0 only\n";
        emit::emitInstruction(w);
        o() << skip << ":\n";
      } else {
        emit::emitInstruction(w);
      }
    }
    o() << "$T" << t << "_end:\n  mad.lo.u64 %rd5, %inst, " << k_.resultWords * 8 << ", %res;\n";
    for (const auto& term : k_.terms)
      if (term.source == TermSource::Register && term.term.thread == t)
        o() << "  " << (wg_ ? "@%plead " : "") << "st.global.u64 [%rd5+" << term.resultIndex * 8 << "], "
            << valueReg(t, term.term.reg) << ";\n";
    if (wg_) {
      o() << "  @%ptimed st.global.u64 [%rd5+" << (k_.resultWords - 1) * 8 << "], 1;  // a spin timed out\n";
      o() << "  @!%plead mov.s32 %lt, -1;  // thread 0 reports for the warpgroup\n";
    }
    o() << "  bra $EPI;\n";
    o() << "$T" << t << "_timeout:  // a spin exceeded its bound: the instance is recorded as timed out\n";
    o() << "  mad.lo.u64 %rd5, %inst, " << k_.resultWords * 8 << ", %res;\n  st.global.u64 [%rd5+"
        << (k_.resultWords - 1) * 8 << "], 1;\n  bra $T" << t << "_end;\n";
  }

  /// Writes a jump of thread t to label `target`; a backward one (the label at or before `pos`) first
  /// counts against the spin bound (%r7) and leaves for the thread's timeout exit once it is exceeded.
  void emitJump(int t, size_t pos, const std::map<std::string, size_t>& labels, const Operand& target,
                const std::string& guard) {
    auto it = labels.find(target.name);
    if (it == labels.end()) fail(target.src, "unknown label '" + target.name + "'");
    if (it->second <= pos && wg_) {
      // Warpgroup kernel: a thread whose spin exceeds the bound records the timeout and goes on with the
      // code after the jump, so that every thread of the warpgroup still reaches the same .sync.aligned wgmma
      // instructions (a thread leaving early would leave the others waiting for it).
      const std::string cont = fresh("cont");
      o() << "  add.u32 %spin, %spin, 1;\n  setp.gt.u32 %pspin, %spin, %r7;\n  or.pred %ptimed, %ptimed, %pspin;\n"
          << "  @%pspin bra " << cont << ";\n";
      o() << "  " << guard << "bra $L" << t << "_" << sanitize(target.name) << ";\n" << cont << ":\n";
      return;
    }
    if (it->second <= pos) {
      o() << "  add.u32 %spin, %spin, 1;\n  setp.gt.u32 %pspin, %spin, %r7;\n  @%pspin bra $T" << t << "_timeout;\n";
    }
    o() << "  " << guard << "bra $L" << t << "_" << sanitize(target.name) << ";\n";
  }

  /// Litmus thread t as the family emitters see it (emit/Emit.hpp) while its code is written.
  class ThreadCode final : public emit::Thread {
   public:
    ThreadCode(Generator& gen, int t, const std::map<std::string, size_t>& labels)
        : gen_(gen), t_(t), labels_(labels) {}
    size_t pos = 0;  ///< the statement being written

    [[nodiscard]] int index() const override { return t_; }
    std::ostream& out() override { return gen_.o(); }
    emit::Address address(const Instr& in, const Operand& op) override { return gen_.address(t_, in, op); }
    std::string value(const Operand& op, int bits, int& tmp) override { return gen_.src(t_, op, bits, tmp); }
    [[nodiscard]] int globalIndex(const Operand& op) const override { return gen_.locs_.at(op.loc.name).index; }
    std::string genericAddress(const Instr& in, const Operand& op) override { return gen_.genericAddress(t_, in, op); }
    [[nodiscard]] emit::TensorMapRef tensorMap(const Operand& op) const override { return gen_.tensorMapRef(op); }
    [[noreturn]] void failConstant(const Instr& in, const Operand& loc) override { gen_.failConstant(in, loc); }
    [[nodiscard]] emit::Shape shape() const override {
      int warpLanes = 0;  // litmus threads in this thread's warp
      for (size_t u = 0; u < gen_.places_.size(); ++u)
        warpLanes += gen_.test_.threads[u].where.cta == gen_.test_.threads[t_].where.cta &&
                     gen_.places_[u].wig == gen_.places_[t_].wig;
      return {gen_.opt_.groupsPerBlock, gen_.places_[t_].ctaThreads, gen_.laneStride_, gen_.places_[t_].sub, warpLanes};
    }
    void jump(const Operand& target, const std::string& guard) override {
      gen_.emitJump(t_, pos, labels_, target, guard);
    }
    [[nodiscard]] std::string endLabel() const override { return "$T" + std::to_string(t_) + "_end"; }
    [[nodiscard]] const std::vector<litmus::Stmt>& statements() const override { return gen_.test_.threads[t_].code; }

   private:
    Generator& gen_;
    int t_;
    const std::map<std::string, size_t>& labels_;
  };
};

}  // namespace

std::string requiredArch(const litmus::Test& test) {
  for (const auto& th : test.threads)
    for (const auto& st : th.code)
      if (st.instr && litmus::requiredTarget(*st.instr).sm >= 100) return "sm_100a";
  return "sm_90a";
}

Kernel generate(const litmus::Test& test, const GenOptions& options) { return Generator(test, options).run(); }

}  // namespace ptxmm::ptxgen
