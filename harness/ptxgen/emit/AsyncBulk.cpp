// Bulk reductions and prefetches, family AsyncBulk: cp.reduce.async.bulk `[dst], [src], size{, [mbar]}`
// (.global.shared::cta.bulk_group, or .shared::cluster.shared::cta.mbarrier::complete_tx::bytes when the
// destination is shared memory of the cluster) and cp.async.bulk.prefetch.L2.global `[src], size`. The
// `.tensor` forms go through the CUtensorMap that the runner encoded (Kernel::tensorMaps).
#include "ptxgen/Kernel.hpp"
#include "ptxgen/emit/Emit.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::ptxgen::emit {
namespace {

using ptx::OpFamily;
using ptx::OpId;
using ptx::Space;

/// The operands after `[dst], [src]` / `[src]`: sizes (32-bit), the mbarrier, a cache policy (64-bit).
std::string rest(Writer& w, size_t from) {
  const auto& ops = w.in.operands;
  std::string out;
  for (size_t k = from; k < ops.size(); ++k) {
    if (isAddress(ops[k])) {
      out += ", " + w.address(ops[k]).text;
      continue;
    }
    const bool policy = k + 1 == ops.size() && w.in.hasFlag("L2::cache_hint");
    out += ", " + w.value(ops[k], policy ? 64 : 32);
  }
  return out;
}

/// The state spaces follow where the generator placed the operands (the parser checked the form):
/// `.global.shared::cta` into a global location, else `.shared::cluster.shared::cta`.
void emitReduce(Writer& w) {
  w.need(3);
  const auto& ops = w.in.operands;
  auto d = w.address(ops[0]);
  auto s = w.address(ops[1]);
  Instr r = w.in;
  r.space = d.space == Space::Global ? Space::Global : Space::SharedCluster;
  r.srcSpace = Space::SharedCta;
  const std::string more = rest(w, 2);  // conversions go before the line
  w.out() << "  " << w.guard << spell(r, r.space) << " " << d.text << ", " << s.text << more << ";\n";
}

void emitPrefetch(Writer& w) {
  w.need(2);
  auto s = w.address(w.in.operands[0]);
  const std::string more = rest(w, 1);
  w.out() << "  " << w.guard << spell(w.in) << " " << s.text << more << ";\n";
}

/// cp.reduce.async.bulk.tensor `[tmap, {c}], [srcMem]{, policy}` (.global.shared::cta, bulk group) through
/// the map the runner encoded over `<map>_tensor` (Kernel::tensorMaps).
void emitReduceTensor(Writer& w) {
  w.need(2);
  const auto& ops = w.in.operands;
  const std::string map = tensorMapOperand(w, ops[0]);
  auto s = w.address(ops[1]);
  const std::string more = rest(w, 2);
  Instr r = w.in;
  r.srcSpace = Space::SharedCta;
  w.out() << "  " << w.guard << spell(r, Space::Global) << " " << map << ", " << s.text << more << ";\n";
}

/// cp.async.bulk.prefetch.tensor `[tmap, {c}]{, policy}` through the runner-encoded map.
void emitPrefetchTensor(Writer& w) {
  w.need(1);
  const std::string map = tensorMapOperand(w, w.in.operands[0]);
  const std::string more = rest(w, 1);
  w.out() << "  " << w.guard << spell(w.in) << " " << map << more << ";\n";
}

constexpr OpEmitter kAsyncBulk[] = {{OpId::CpReduceAsyncBulk, emitReduce},
                                    {OpId::CpReduceAsyncBulkTensor, emitReduceTensor},
                                    {OpId::CpAsyncBulkPrefetch, emitPrefetch},
                                    {OpId::CpAsyncBulkPrefetchTensor, emitPrefetchTensor}};
static_assert(coversFamily(kAsyncBulk, OpFamily::AsyncBulk),
              "every AsyncBulk row of PtxOps.def needs its emitter in kAsyncBulk");

}  // namespace

void emitAsyncBulk(Writer& w) { emitFrom(kAsyncBulk, w); }

void regsAsyncBulk(const Instr&, Regs&) {}

void defaultsAsyncBulk(const Instr& in, Qualifiers& q) {
  if (in.op != OpId::CpReduceAsyncBulk) return;
  // The completion that goes with the destination the generator gives (spell's space override).
  q.groupDefaults = {{"completion", q.space == Space::Global ? ".bulk_group" : ".mbarrier::complete_tx::bytes"}};
}

}  // namespace ptxmm::ptxgen::emit
