#include "ptx/Ops.hpp"

#include <array>

namespace ptxmm::ptx {
namespace {

constexpr std::array<OpInfo, static_cast<size_t>(OpId::Count_)> kOps = {{
#define PTX_OP(Id, mnemonic, family, proxy, minSm, minPtx, quals, operands, section) \
  {OpId::Id, #Id, mnemonic, OpFamily::family, Proxy::proxy, Target{minSm, minPtx}, quals, operands, section},
#include "ptx/PtxOps.def"
#undef PTX_OP
}};

}  // namespace

std::span<const OpInfo> allOps() { return kOps; }

const OpInfo& opInfo(OpId id) { return kOps[static_cast<size_t>(id)]; }

const OpInfo* findOp(std::string_view mnemonic) {
  for (const auto& op : kOps)
    if (op.mnemonic == mnemonic) return &op;
  return nullptr;
}

}  // namespace ptxmm::ptx
