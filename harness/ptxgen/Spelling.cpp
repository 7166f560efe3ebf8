// PTX spelling of litmus instructions, driven by the operations table: the qualifier groups of an
// op's row (ptx/PtxOps.def) are walked in table order and each is written out, defaults included
// (the defaults of each family are in emit/<Family>.cpp, emit::qualifiers).
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "ptx/Ops.hpp"
#include "ptxgen/Kernel.hpp"
#include "ptxgen/emit/Emit.hpp"

namespace ptxmm::ptxgen {
namespace {

using ptx::DataType;
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

}  // namespace

namespace emit {

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
  // wgmma and tcgen05 (their own groups; wgmma's type groups share values and are spelled in spell())
  if (g == "sync" || startsWith(g, "tc_")) return ptx::groupAccepts(g, f);
  // cp.async.bulk.prefetch (.L2), tensormap.cp_fenceproxy (.tensormap::generic)
  if (g == "prefetch_level" || g == "tmap_proxy") return ptx::groupAccepts(g, f);
  return g == f;  // expect_tx, parity, aligned, read, async, noinc, lo, uni
}

}  // namespace emit

std::string spell(const litmus::Instr& in, Space spaceOverride) {
  const ptx::OpInfo& info = ptx::opInfo(in.op);
  if (info.family == ptx::OpFamily::Local) return emit::spellLocal(in);
  const emit::Qualifiers q = emit::qualifiers(in, spaceOverride);
  std::string out(info.mnemonic);
  if (in.op == ptx::OpId::WgmmaMmaAsync) {
    // `.f32.f16.f16`: the dtype, atype and btype groups accept the same values, so a flag's group is its
    // place: the parser stores the flags in group order.
    for (const auto& f : in.flags) out += "." + f;
    return out;
  }
  auto writeFlags = [&](std::string_view group) {
    bool any = false;
    for (const auto& f : in.flags)
      if (emit::flagInGroup(group, f)) {
        out += "." + f;
        any = true;
      }
    return any;
  };
  for (std::string_view g : splitGroups(info.qualifiers)) {
    if (g == "sem") {
      if (q.sem != Sem::None) out += "." + std::string(ptx::toString(q.sem));
    } else if (g == "scope") {
      if (q.scope != Scope::None) out += "." + std::string(ptx::toString(q.scope));
    } else if (g == "space" || g == "dstspace") {
      out += ptx::toString(q.space);  // "" for Generic
    } else if (g == "srcspace") {     // a copy reads .global unless told otherwise
      out += ptx::toString(in.srcSpace == Space::Generic ? Space::Global : in.srcSpace);
    } else if (g == "type") {
      out += ptx::toString(q.type);  // "" for None
    } else if (!writeFlags(g)) {
      out += q.groupDefault(g);
    }
  }
  return out;
}

int minPtxVersion(const litmus::Instr& in) {
  const emit::Qualifiers q = emit::qualifiers(in, Space::Generic);
  int v = std::max({ptx::opInfo(in.op).minTarget.ptx, 80, q.minPtx});
  for (const auto& f : in.flags) {
    if (startsWith(f, "sync_restrict")) v = std::max(v, 86);
    if (f == "multicast::cluster::all") v = std::max(v, 86);
  }
  if (q.type == DataType::B128) v = std::max(v, 83);
  return std::min(v, 90);
}

}  // namespace ptxmm::ptxgen
