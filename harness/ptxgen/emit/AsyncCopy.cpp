// Asynchronous copies, families AsyncCopy and AsyncGroup: cp.async (global → shared::cta, .ca unless
// given), cp.async.bulk (its state spaces and completion from where its operands lie), the commit and
// wait groups. cp.async.bulk.tensor copies through the CUtensorMap that the runner encoded into its map
// location's cell (Kernel::tensorMaps), named by its generic address.
#include "ptxgen/Kernel.hpp"
#include "ptxgen/emit/Emit.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::ptxgen::emit {
namespace {

using ptx::OpFamily;
using ptx::OpId;
using ptx::Space;

bool isShared(Space s) { return s == Space::SharedCta || s == Space::SharedCluster; }

void emitCpAsync(Writer& w) {
  w.need(3);
  const auto& ops = w.in.operands;
  auto d = w.address(ops[0]);
  auto s = w.address(ops[1]);
  if (d.space == Space::Global || s.space != Space::Global)
    throw DiagnosticError(w.in.src, "cp.async copies global → shared::cta");
  std::string rest;
  for (size_t k = 2; k < ops.size(); ++k) rest += ", " + w.value(ops[k], 32);
  w.out() << "  " << w.guard << spell(w.in) << " " << d.text << ", " << s.text << rest << ";\n";
}

/// `[dst], [src], size{, [mbar]}{, ctaMask}{, policy}`: global → shared::cluster (or shared::cta as
/// written), shared::cta → global, or shared::cta → shared::cluster; a multicast CTA mask is .b16.
void emitCpAsyncBulk(Writer& w) {
  w.need(3);
  const auto& ops = w.in.operands;
  auto d = w.address(ops[0]);
  auto s = w.address(ops[1]);
  Instr copy = w.in;
  if (d.space == Space::Global) {
    copy.space = Space::Global;
    copy.srcSpace = Space::SharedCta;
  } else {
    copy.space = w.in.space == Space::SharedCta ? Space::SharedCta : Space::SharedCluster;
    copy.srcSpace = s.space == Space::Global ? Space::Global : Space::SharedCta;
  }
  std::string rest = ", " + w.value(ops[2], 32);
  for (size_t k = 3; k < ops.size(); ++k) {
    if (isAddress(ops[k])) {
      rest += ", " + w.address(ops[k]).text;
      continue;
    }
    std::string v = w.value(ops[k], 32);
    if (w.in.hasFlag("multicast::cluster") && ops[k].kind == Operand::Kind::Imm) {
      w.out() << "  mov.u16 %rs0, " << ops[k].imm << ";\n";
      v = "%rs0";
    }
    rest += ", " + v;
  }
  w.out() << "  " << w.guard << spell(copy, copy.space) << " " << d.text << ", " << s.text << rest << ";\n";
}

/// cp.async.bulk.tensor, `.tile`: the load `[dstMem], [tmap, {c}], [mbar]{, ctaMask}{, policy}`
/// (global → shared::cluster or shared::cta, mbarrier completion) and the store form
/// `[tmap, {c}], [srcMem]{, policy}` (shared::cta → global, bulk group; written as given once the parser
/// accepts it).
void emitTensorCopy(Writer& w) {
  const auto& ops = w.in.operands;
  const bool store = w.in.space == Space::Global;
  w.need(store ? 2 : 3);
  std::string rest;
  auto extra = [&](size_t from) {
    for (size_t k = from; k < ops.size(); ++k) {
      if (w.in.hasFlag("multicast::cluster") && k == from) {  // ctaMask is .b16
        if (ops[k].kind == Operand::Kind::Imm)
          w.out() << "  mov.u16 %rs0, " << ops[k].imm << ";\n";
        else
          w.out() << "  cvt.u16.u64 %rs0, " << w.value(ops[k], 64) << ";\n";
        rest += ", %rs0";
        continue;
      }
      rest += ", " + w.value(ops[k], 64);  // the .L2::cache_hint policy is .b64
    }
  };
  if (store) {
    const std::string map = tensorMapOperand(w, ops[0]);
    auto s = w.address(ops[1]);
    extra(2);
    Instr copy = w.in;
    copy.srcSpace = Space::SharedCta;
    w.out() << "  " << w.guard << spell(copy, Space::Global) << " " << map << ", " << s.text << rest << ";\n";
    return;
  }
  auto d = w.address(ops[0]);
  const std::string map = tensorMapOperand(w, ops[1]);
  auto bar = w.address(ops[2]);
  extra(3);
  Instr copy = w.in;
  copy.space = w.in.space == Space::SharedCta ? Space::SharedCta : Space::SharedCluster;
  copy.srcSpace = Space::Global;
  w.out() << "  " << w.guard << spell(copy, copy.space) << " " << d.text << ", " << map << ", " << bar.text << rest
          << ";\n";
}

void emitBare(Writer& w) { w.bare(); }

/// wait_group N (N = 0 when not given).
void emitWaitGroup(Writer& w) {
  const auto& ops = w.in.operands;
  const std::string n = ops.empty() ? "0" : w.value(ops[0], 32);  // a conversion goes before the line
  w.out() << "  " << w.guard << spell(w.in) << " " << n << ";\n";
}

constexpr OpEmitter kAsyncCopy[] = {
    {OpId::CpAsync, emitCpAsync}, {OpId::CpAsyncBulk, emitCpAsyncBulk}, {OpId::CpAsyncBulkTensor, emitTensorCopy}};
constexpr OpEmitter kAsyncGroup[] = {{OpId::CpAsyncCommit, emitBare},
                                     {OpId::CpAsyncWaitGroup, emitWaitGroup},
                                     {OpId::CpAsyncWaitAll, emitBare},
                                     {OpId::CpAsyncBulkCommit, emitBare},
                                     {OpId::CpAsyncBulkWait, emitWaitGroup}};
static_assert(coversFamily(kAsyncCopy, OpFamily::AsyncCopy),
              "every AsyncCopy row of PtxOps.def needs its emitter in kAsyncCopy");
static_assert(coversFamily(kAsyncGroup, OpFamily::AsyncGroup),
              "every AsyncGroup row of PtxOps.def needs its emitter in kAsyncGroup");

}  // namespace

std::string tensorMapOperand(Writer& w, const Operand& map) {
  if (w.thread.tensorMap(map).spec == nullptr)
    throw DiagnosticError(map.src, "'" + map.loc.name + "' holds no tensor map encoded by the runner");
  std::string coords;
  for (const auto& c : map.elems) coords += (coords.empty() ? "" : ", ") + w.value(c, 32);
  const std::string a = w.genericAddress(map);
  return a.substr(0, a.size() - 1) + ", {" + coords + "}]";
}

void emitAsyncCopy(Writer& w) { emitFrom(kAsyncCopy, w); }
void emitAsyncGroup(Writer& w) { emitFrom(kAsyncGroup, w); }

void regsAsyncCopy(const Instr&, Regs&) {}
void regsAsyncGroup(const Instr&, Regs&) {}

void defaultsAsyncCopy(const Instr& in, Qualifiers& q) {
  if (in.op == OpId::CpAsync) {
    q.space = Space::SharedCta;
    q.groupDefaults = {{"cacheop", ".ca"}};
  }
  if (in.op == OpId::CpAsyncBulk) {
    // Completion by mbarrier into shared memory, by bulk group into global memory (from the space as
    // given; the generator always gives the destination's space).
    q.groupDefaults = {{"completion", isShared(q.space) ? ".mbarrier::complete_tx::bytes" : ".bulk_group"}};
    if (q.space == Space::Generic) q.space = Space::SharedCluster;
  }
  if (in.op == OpId::CpAsyncBulkTensor && in.space == Space::SharedCta) q.minPtx = 86;  // .shared::cta destination
}

void defaultsAsyncGroup(const Instr&, Qualifiers&) {}

}  // namespace ptxmm::ptxgen::emit
