// PTX spelling of litmus instructions, driven by the operations table: the qualifier groups of an
// op's row (ptx/PtxOps.def) are walked in table order and each is written out, defaults included.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "ptx/Ops.hpp"
#include "ptxgen/Kernel.hpp"

namespace ptxmm::ptxgen {
namespace {

using ptx::DataType;
using ptx::OpId;
using ptx::Scope;
using ptx::Sem;
using ptx::Space;

std::vector<std::string_view> splitGroups(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(';', start);
    if (end == std::string_view::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

/// Does flag `f` belong to qualifier group `g`?
bool flagInGroup(std::string_view g, std::string_view f) {
  static const std::vector<std::string_view> atomOps = {"add", "cas", "exch", "min", "max",
                                                        "inc", "dec", "and",  "or",  "xor"};
  static const std::vector<std::string_view> cmps = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"};
  if (g == "atomop") return std::find(atomOps.begin(), atomOps.end(), f) != atomOps.end();
  if (g == "cmp") return std::find(cmps.begin(), cmps.end(), f) != cmps.end();
  if (g == "sync_restrict") return startsWith(f, "sync_restrict");
  if (g == "membar_level") return f == "cta" || f == "gl" || f == "sys";
  if (g == "proxykind") return f == "surface" || f == "texture" || f == "constant" || f == "generic" || f == "alias";
  if (g == "cacheop") return f == "ca" || f == "cg";
  if (g == "hints") return startsWith(f, "L2::") || startsWith(f, "level::");
  if (g == "completion") return startsWith(f, "mbarrier::complete_tx") || f == "bulk_group";
  if (g == "multicast") return f == "multicast::cluster";
  if (g == "multicast_all") return f == "multicast::cluster::all";
  if (g == "query") return startsWith(f, "is_canceled") || startsWith(f, "get_first_ctaid");
  // cp.async.bulk.tensor, tensormap.replace
  if (g == "dim" || g == "load_mode" || g == "tmap_mode" || g == "tmap_field" || g == "tmap_size")
    return ptx::groupAccepts(g, f);
  return g == f;  // expect_tx, parity, aligned, read, async, noinc, lo, uni
}

bool isShared(Space s) { return s == Space::SharedCta || s == Space::SharedCluster; }

DataType defaultType(const litmus::Instr& in) {
  if (in.type != DataType::None) return in.type;
  switch (in.op) {
    case OpId::Atom:
    case OpId::Red:
      if (in.hasFlag("add") || in.hasFlag("inc") || in.hasFlag("dec") || in.hasFlag("min") || in.hasFlag("max"))
        return DataType::U32;
      return DataType::B32;
    case OpId::MbarrierInit:
    case OpId::MbarrierInval:
    case OpId::MbarrierExpectTx:
    case OpId::MbarrierCompleteTx:
    case OpId::MbarrierArrive:
    case OpId::MbarrierArriveDrop:
    case OpId::MbarrierTestWait:
    case OpId::MbarrierTryWait:
    case OpId::CpAsyncMbarArrive: return DataType::B64;
    case OpId::ClcTryCancel: return DataType::B128;
    case OpId::Ld:
    case OpId::St: return DataType::B32;
    default: return DataType::None;
  }
}

/// Semantics and scope with the PTX defaults written out.
std::pair<Sem, Scope> semScope(const litmus::Instr& in) {
  Sem sem = in.sem;
  Scope scope = in.scope;
  switch (in.op) {
    case OpId::Ld:
    case OpId::St:
      if (sem == Sem::None) sem = scope == Scope::None ? Sem::Weak : Sem::Relaxed;
      if (sem == Sem::Weak || sem == Sem::Volatile)
        scope = Scope::None;
      else if (sem == Sem::Mmio)
        scope = Scope::Sys;
      else if (scope == Scope::None)
        scope = Scope::Gpu;
      break;
    case OpId::Atom:
    case OpId::Red:
      if (sem == Sem::None || sem == Sem::Weak) sem = Sem::Relaxed;
      if (scope == Scope::None) scope = Scope::Gpu;
      break;
    case OpId::Fence:
      if (sem == Sem::None) sem = Sem::AcqRel;
      if (scope == Scope::None) scope = Scope::Gpu;
      break;
    case OpId::FenceProxyAsyncGen:
      if (sem == Sem::None) sem = Sem::Release;
      if (scope == Scope::None) scope = Scope::Cluster;
      break;
    case OpId::FenceProxyTmap:
      if (sem == Sem::None) sem = Sem::Release;
      if (scope == Scope::None) scope = Scope::Gpu;
      break;
    case OpId::FenceMbarrierInit:
      sem = Sem::Release;
      scope = Scope::Cluster;
      break;
    case OpId::BarrierClusterArrive:
      if (sem == Sem::None) sem = Sem::Release;
      scope = Scope::None;
      break;
    case OpId::BarrierClusterWait:
      if (sem == Sem::None) sem = Sem::Acquire;
      scope = Scope::None;
      break;
    case OpId::MbarrierArrive:
    case OpId::MbarrierArriveDrop:
      if (sem == Sem::None) sem = Sem::Release;
      if (scope == Scope::None) scope = Scope::Cta;
      break;
    case OpId::MbarrierTestWait:
    case OpId::MbarrierTryWait:
      if (sem == Sem::None) sem = Sem::Acquire;
      if (scope == Scope::None) scope = Scope::Cta;
      break;
    case OpId::MbarrierExpectTx:
    case OpId::MbarrierCompleteTx:
      if (sem == Sem::None) sem = Sem::Relaxed;
      if (scope == Scope::None) scope = Scope::Cta;
      break;
    default: break;
  }
  return {sem, scope};
}

}  // namespace

std::string spell(const litmus::Instr& in, Space spaceOverride) {
  const ptx::OpInfo& info = ptx::opInfo(in.op);
  auto [sem, scope] = semScope(in);
  Space space = in.space;
  if (spaceOverride != Space::Generic) space = spaceOverride;
  const DataType type = defaultType(in);
  std::string out(info.mnemonic);
  // Register-only arithmetic is done on 64-bit registers (litmus registers are 64-bit values).
  if (info.family == ptx::OpFamily::Local) {
    bool isSigned = in.type == DataType::S32 || in.type == DataType::S64 || in.type == DataType::S16 ||
                    in.type == DataType::S8 || in.type == DataType::None;
    bool isBitwise =
        in.op == OpId::And || in.op == OpId::Or || in.op == OpId::Xor || in.op == OpId::Mov || in.op == OpId::Selp;
    if (in.op == OpId::Mul) out += ".lo";
    if (in.op == OpId::Setp) {
      for (const auto& f : in.flags)
        if (flagInGroup("cmp", f)) out += "." + f;
      out += isSigned ? ".s64" : ".u64";
      return out;
    }
    out += isBitwise ? ".b64" : isSigned ? ".s64" : ".u64";
    return out;
  }
  std::vector<std::string> used;
  auto emitFlags = [&](std::string_view group) {
    for (const auto& f : in.flags)
      if (flagInGroup(group, f)) {
        out += "." + f;
        used.push_back(f);
      }
  };
  for (std::string_view g : splitGroups(info.qualifiers)) {
    if (g == "sem") {
      if (sem != Sem::None) out += "." + std::string(ptx::toString(sem));
    } else if (g == "scope") {
      if (scope != Scope::None) out += "." + std::string(ptx::toString(scope));
    } else if (g == "space" || g == "dstspace") {
      if (in.op == OpId::FenceProxyAsync) {
        if (space != Space::Generic) out += ptx::toString(space);
      } else if (in.op == OpId::CpAsync) {
        out += ".shared::cta";
      } else if (in.op == OpId::CpAsyncBulk) {
        out += ptx::toString(space == Space::Generic ? Space::SharedCluster : space);
      } else if (in.op == OpId::ClcTryCancel || in.op == OpId::CpAsyncMbarArrive) {
        out += ".shared::cta";
      } else if (space != Space::Generic) {
        out += ptx::toString(space);
      }
    } else if (g == "srcspace") {
      Space src = in.srcSpace;
      if (src == Space::Generic) src = in.op == OpId::CpAsyncBulk && isShared(space) ? Space::Global : Space::Global;
      out += ptx::toString(src);
    } else if (g == "type") {
      if (in.op == OpId::ClcQueryCancel) continue;
      if (type != DataType::None) out += ptx::toString(type);
    } else if (g == "async") {
      if (in.op == OpId::ClcTryCancel)
        out += ".async";
      else
        emitFlags(g);
    } else if (g == "completion") {
      bool any = false;
      for (const auto& f : in.flags) any = any || flagInGroup(g, f);
      if (any)
        emitFlags(g);
      else if (in.op == OpId::ClcTryCancel || (in.op == OpId::CpAsyncBulk && isShared(space)))
        out += ".mbarrier::complete_tx::bytes";
      else if (in.op == OpId::CpAsyncBulk)
        out += ".bulk_group";
    } else if (g == "cacheop") {
      bool any = false;
      for (const auto& f : in.flags) any = any || flagInGroup(g, f);
      if (any)
        emitFlags(g);
      else
        out += ".ca";
    } else if (g == "query") {
      emitFlags(g);
      if (in.hasFlag("is_canceled"))
        out += ".pred.b128";
      else if (in.hasFlag("get_first_ctaid"))
        out += ".v4.b32.b128";
      else
        out += ".b32.b128";
    } else {
      emitFlags(g);
    }
  }
  return out;
}

int minPtxVersion(const litmus::Instr& in) {
  const ptx::OpInfo& info = ptx::opInfo(in.op);
  int v = std::max(info.minTarget.ptx, 80);
  auto [sem, scope] = semScope(in);
  const bool mbar = info.family == ptx::OpFamily::Mbarrier;
  if (mbar && sem == Sem::Relaxed && in.op != OpId::MbarrierExpectTx && in.op != OpId::MbarrierCompleteTx)
    v = std::max(v, 86);
  if (mbar && scope == Scope::Cluster) v = std::max(v, 80);
  for (const auto& f : in.flags) {
    if (startsWith(f, "sync_restrict")) v = std::max(v, 86);
    if (f == "multicast::cluster::all") v = std::max(v, 86);
  }
  if (defaultType(in) == DataType::B128) v = std::max(v, 83);
  if (in.op == OpId::FenceProxyAsyncGen || info.family == ptx::OpFamily::Clc) v = std::max(v, 86);
  if (in.op == OpId::TensormapReplace && in.hasFlag("swizzle_atomicity")) v = std::max(v, 86);
  if (in.op == OpId::CpAsyncBulkTensor && in.space == Space::SharedCta) v = std::max(v, 86);
  return std::min(v, 90);
}

}  // namespace ptxmm::ptxgen
