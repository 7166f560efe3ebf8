#include "ptx/Ops.hpp"

#include <array>
#include <string>

namespace ptxmm::ptx {
namespace {

constexpr std::array<OpInfo, static_cast<size_t>(OpId::Count_)> kOps = {{
#define PTX_OP(Id, mnemonic, family, proxy, minSm, minPtx, quals, operands, section) \
  {OpId::Id, #Id, mnemonic, OpFamily::family, Proxy::proxy, Target{minSm, minPtx}, quals, operands, section},
#include "ptx/PtxOps.def"
#undef PTX_OP
}};

struct Alias {
  std::string_view spelling;
  OpId id;
};

// Alternative spellings of table rows (Dat3M litmus dialect and PTX synonyms).
constexpr std::array<Alias, 6> kAliases = {{{"bar.cta.sync", OpId::BarSync},
                                            {"barrier.sync", OpId::BarSync},
                                            {"barrier.cta.sync", OpId::BarSync},
                                            {"bar.cta.arrive", OpId::BarArrive},
                                            {"barrier.arrive", OpId::BarArrive},
                                            {"barrier.cta.arrive", OpId::BarArrive}}};

constexpr std::array<std::string_view, 8> kSemVals = {"weak",    "relaxed", "acquire",  "release",
                                                      "acq_rel", "sc",      "volatile", "mmio"};
constexpr std::array<std::string_view, 4> kScopeVals = {"cta", "cluster", "gpu", "sys"};
constexpr std::array<std::string_view, 7> kSpaceVals = {"global", "shared", "shared::cta", "shared::cluster",
                                                        "const",  "param",  "local"};
constexpr std::array<std::string_view, 16> kTypeVals = {"b8",  "b16", "b32", "b64", "b128", "u8",  "u16", "u32",
                                                        "u64", "s8",  "s16", "s32", "s64",  "f32", "f64", "pred"};
// sub, mul, div: Dat3M litmus operations with no PTX atom/red counterpart (accepted in the Dat3M spelling
// only, with a warning; litmus/README.md).
constexpr std::array<std::string_view, 13> kAtomOpVals = {"add", "inc", "dec",  "min", "max", "and", "or",
                                                          "xor", "cas", "exch", "sub", "mul", "div"};
constexpr std::array<std::string_view, 2> kSyncRestrictVals = {"sync_restrict::shared::cta",
                                                               "sync_restrict::shared::cluster"};
constexpr std::array<std::string_view, 3> kMembarVals = {"cta", "gl", "sys"};
constexpr std::array<std::string_view, 4> kProxyKindVals = {"surface", "texture", "constant", "generic"};
constexpr std::array<std::string_view, 1> kAlignedVals = {"aligned"};
constexpr std::array<std::string_view, 1> kExpectTxVals = {"expect_tx"};
constexpr std::array<std::string_view, 1> kParityVals = {"parity"};
constexpr std::array<std::string_view, 2> kCacheOpVals = {"ca", "cg"};
constexpr std::array<std::string_view, 4> kHintVals = {"L2::cache_hint", "L2::64B", "L2::128B", "L2::256B"};
constexpr std::array<std::string_view, 2> kCompletionVals = {"mbarrier::complete_tx::bytes", "bulk_group"};
constexpr std::array<std::string_view, 1> kMulticastVals = {"multicast::cluster"};
constexpr std::array<std::string_view, 1> kMulticastAllVals = {"multicast::cluster::all"};
constexpr std::array<std::string_view, 1> kAsyncVals = {"async"};
constexpr std::array<std::string_view, 5> kQueryVals = {"is_canceled", "get_first_ctaid", "get_first_ctaid::x",
                                                        "get_first_ctaid::y", "get_first_ctaid::z"};
constexpr std::array<std::string_view, 1> kVecVals = {"v4"};
constexpr std::array<std::string_view, 2> kDtypeVals = {"pred", "b32"};
constexpr std::array<std::string_view, 1> kReadVals = {"read"};
constexpr std::array<std::string_view, 1> kNoincVals = {"noinc"};
constexpr std::array<std::string_view, 3> kLoVals = {"lo", "hi", "wide"};
constexpr std::array<std::string_view, 10> kCmpVals = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"};
constexpr std::array<std::string_view, 1> kUniVals = {"uni"};
// cp.async.bulk.tensor (§9.7.9.25.5.2) and tensormap.replace (§9.7.9.26)
constexpr std::array<std::string_view, 5> kDimVals = {"1d", "2d", "3d", "4d", "5d"};
constexpr std::array<std::string_view, 7> kLoadModeVals = {"tile",      "tile::gather4",  "tile::scatter4", "im2col",
                                                           "im2col::w", "im2col::w::128", "im2col_no_offs"};
constexpr std::array<std::string_view, 1> kTmapModeVals = {"tile"};
constexpr std::array<std::string_view, 11> kTmapFieldVals = {
    "global_address", "rank",     "box_dim",           "global_dim",   "global_stride",
    "element_stride", "elemtype", "interleave_layout", "swizzle_mode", "swizzle_atomicity",
    "fill_mode"};
constexpr std::array<std::string_view, 1> kTmapSizeVals = {"b1024"};
// wgmma (§9.7.15) and tcgen05 (§9.7.16): the groups list the real qualifiers so that the ones the litmus
// abstraction does not model are rejected with their reason (Validate.cpp), not as unknown.
constexpr std::array<std::string_view, 1> kSyncVals = {"sync"};
constexpr std::array<std::string_view, 8> kWgmmaShapeVals = {"m64n8k16",   "m64n16k16",  "m64n32k16", "m64n64k16",
                                                             "m64n128k16", "m64n256k16", "m64n8k8",   "m64n8k32"};
constexpr std::array<std::string_view, 3> kWgmmaDtypeVals = {"f32", "f16", "s32"};
constexpr std::array<std::string_view, 7> kWgmmaAbTypeVals = {"f16", "bf16", "tf32", "e4m3", "e5m2", "u8", "s8"};
constexpr std::array<std::string_view, 2> kTcCtaGroupVals = {"cta_group::1", "cta_group::2"};
constexpr std::array<std::string_view, 6> kTcKindVals = {"kind::f16", "kind::tf32",     "kind::f8f6f4",
                                                         "kind::i8",  "kind::mxf8f6f4", "kind::mxf4"};
constexpr std::array<std::string_view, 6> kTcCpShapeVals = {
    "128x256b", "4x256b", "128x128b", "64x128b::warpx2::02_13", "64x128b::warpx2::01_23", "32x128b::warpx4"};
constexpr std::array<std::string_view, 5> kTcShapeVals = {"32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2"};
constexpr std::array<std::string_view, 8> kTcNumVals = {"x1", "x2", "x4", "x8", "x16", "x32", "x64", "x128"};
constexpr std::array<std::string_view, 1> kTcCommitVals = {"mbarrier::arrive::one"};
// cp.async.bulk.prefetch{.tensor} (§9.7.9.25.4.3, §9.7.9.25.5.4), tensormap.cp_fenceproxy (§9.7.13.16)
constexpr std::array<std::string_view, 1> kPrefetchLevelVals = {"L2"};
constexpr std::array<std::string_view, 1> kTmapProxyVals = {"tensormap::generic"};

struct Group {
  std::string_view name;
  std::span<const std::string_view> values;
};

// Every qualifier group name used in PtxOps.def and the qualifiers it accepts.
const std::array<Group, 45> kGroups = {{{"sem", kSemVals},
                                        {"scope", kScopeVals},
                                        {"space", kSpaceVals},
                                        {"dstspace", kSpaceVals},
                                        {"srcspace", kSpaceVals},
                                        {"type", kTypeVals},
                                        {"atomop", kAtomOpVals},
                                        {"sync_restrict", kSyncRestrictVals},
                                        {"membar_level", kMembarVals},
                                        {"proxykind", kProxyKindVals},
                                        {"aligned", kAlignedVals},
                                        {"expect_tx", kExpectTxVals},
                                        {"parity", kParityVals},
                                        {"cacheop", kCacheOpVals},
                                        {"hints", kHintVals},
                                        {"completion", kCompletionVals},
                                        {"multicast", kMulticastVals},
                                        {"multicast_all", kMulticastAllVals},
                                        {"async", kAsyncVals},
                                        {"query", kQueryVals},
                                        {"vec", kVecVals},
                                        {"dtype", kDtypeVals},
                                        {"read", kReadVals},
                                        {"noinc", kNoincVals},
                                        {"lo", kLoVals},
                                        {"cmp", kCmpVals},
                                        {"uni", kUniVals},
                                        {"dim", kDimVals},
                                        {"load_mode", kLoadModeVals},
                                        {"tmap_mode", kTmapModeVals},
                                        {"tmap_field", kTmapFieldVals},
                                        {"tmap_size", kTmapSizeVals},
                                        {"sync", kSyncVals},
                                        {"wgmma_shape", kWgmmaShapeVals},
                                        {"wgmma_dtype", kWgmmaDtypeVals},
                                        {"wgmma_atype", kWgmmaAbTypeVals},
                                        {"wgmma_btype", kWgmmaAbTypeVals},
                                        {"tc_cta_group", kTcCtaGroupVals},
                                        {"tc_kind", kTcKindVals},
                                        {"tc_cp_shape", kTcCpShapeVals},
                                        {"tc_shape", kTcShapeVals},
                                        {"tc_num", kTcNumVals},
                                        {"tc_commit", kTcCommitVals},
                                        {"prefetch_level", kPrefetchLevelVals},
                                        {"tmap_proxy", kTmapProxyVals}}};

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  if (s.empty()) return out;
  size_t start = 0;
  while (true) {
    size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  return out;
}

}  // namespace

std::span<const OpInfo> allOps() { return kOps; }

const OpInfo& opInfo(OpId id) { return kOps[static_cast<size_t>(id)]; }

const OpInfo* findOp(std::string_view mnemonic) {
  for (const auto& op : kOps)
    if (op.mnemonic == mnemonic) return &op;
  return nullptr;
}

const OpInfo* findAlias(std::string_view spelling) {
  for (const auto& a : kAliases)
    if (a.spelling == spelling) return &opInfo(a.id);
  return nullptr;
}

std::vector<std::string> allSpellings() {
  std::vector<std::string> out;
  for (const auto& op : kOps) out.emplace_back(op.mnemonic);
  for (const auto& a : kAliases) out.emplace_back(a.spelling);
  return out;
}

std::vector<std::string_view> qualifierGroups(const OpInfo& op) { return split(op.qualifiers, ';'); }

std::span<const std::string_view> qualifierGroupValues(std::string_view group) {
  for (const auto& g : kGroups)
    if (g.name == group) return g.values;
  return {};
}

bool groupAccepts(std::string_view group, std::string_view q) {
  for (auto v : qualifierGroupValues(group))
    if (v == q) return true;
  return false;
}

std::vector<std::string_view> operandSignature(const OpInfo& op) {
  std::vector<std::string_view> out;
  for (auto part : split(op.operands, ','))
    for (auto code : split(part, '|')) out.push_back(code);
  return out;
}

std::vector<char> operandSeparators(const OpInfo& op) {
  std::vector<char> out;
  char next = ' ';
  for (char c : op.operands) {
    if (c == ',' || c == '|') {
      next = c;
    } else if (next != 0) {
      out.push_back(next);
      next = 0;
    }
  }
  return out;
}

}  // namespace ptxmm::ptx
