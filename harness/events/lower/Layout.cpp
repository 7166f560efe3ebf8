// The location layout of the event lowering: the CTAs of the test, its physical locations and virtual
// addresses (docs/lowering.md "Locations and addresses"), init writes, and the resolution of memory operands.
#include <fmt/format.h>

#include <algorithm>

#include "events/lower/Lowerer.hpp"
#include "support/Budget.hpp"

namespace ptxmm::events::lowering {

void Lowerer::noteCta(int c) {
  if (c >= 0 && !ctaPlace_.count(c)) {
    litmus::Placement p;
    p.cta = c;
    p.cluster = c;  // README: missing cluster = the cluster whose id equals the CTA id
    p.gpu = 0;
    ctaPlace_[c] = p;
  }
}

void Lowerer::collectCtas() {
  for (const auto& th : test_.threads)
    if (!ctaPlace_.count(th.where.cta)) ctaPlace_[th.where.cta] = th.where;
  for (const auto& d : test_.locations) noteCta(d.ownerCta);
  for (const auto& ri : test_.regInits)
    if (ri.addressOf) noteCta(ri.addressOf->cta);
  for (const auto& th : test_.threads)
    for (const auto& st : th.code)
      if (st.instr)
        for (const auto& op : st.instr->operands)
          if (op.kind == Operand::Kind::Addr || op.kind == Operand::Kind::Loc) noteCta(op.loc.cta);
  for (auto& [c, p] : ctaPlace_) ctas_.push_back(c);
}

std::vector<int> Lowerer::ctasOfCluster(int cluster) const {
  std::vector<int> out;
  for (int c : ctas_)
    if (ctaPlace_.at(c).cluster == cluster) out.push_back(c);
  return out;
}

int Lowerer::clusterRank(int cta) const {
  auto v = ctasOfCluster(ctaPlace_.at(cta).cluster);
  return static_cast<int>(std::find(v.begin(), v.end(), cta) - v.begin());
}

void Lowerer::buildLocations() {
  for (const auto& d : test_.locations) {
    if (decls_.count(d.name)) throw DiagnosticError(d.src, fmt::format("location '{}' declared twice", d.name));
    decls_[d.name] = &d;
  }
  auto addLoc = [&](const litmus::LocationDecl& d, int cta) {
    Location l;
    l.name = cta >= 0 ? fmt::format("{}@cta{}", d.name, cta) : d.name;
    l.space = d.space == Space::Global ? Space::Global : Space::SharedCta;
    l.ownerCta = cta;
    l.init = d.init;
    l.isMbarrier = d.isMbarrier;
    l.isTmem = d.isTmem;
    l.mbarCount = d.mbarCount;
    if (d.isMbarrier) l.init = mbarrierState(0, d.mbarCount, 0);
    int id = static_cast<int>(prog_.locations.size());
    prog_.locations.push_back(l);
    locIndex_[{d.name, d.space == Space::Global ? -1 : cta}] = id;
    VirtualAddress va;
    va.name = l.name;
    va.loc = id;
    va.synonymOf = static_cast<int>(prog_.vaddrs.size());
    vaddrIndex_[{d.name, d.space == Space::Global ? -1 : cta}] = static_cast<int>(prog_.vaddrs.size());
    prog_.vaddrs.push_back(va);
  };
  for (const auto& d : test_.locations) {
    if (!d.aliasOf.empty()) continue;
    if (d.space == Space::Global)
      addLoc(d, -1);
    else if (d.ownerCta >= 0)
      addLoc(d, d.ownerCta);
    else
      for (int c : ctas_) addLoc(d, c);
  }
  for (const auto& d : test_.locations) {
    if (d.aliasOf.empty()) continue;
    const litmus::LocationDecl* target = aliasTarget(d);
    for (const auto& [key, id] : std::map(locIndex_)) {
      if (key.first != target->name) continue;
      VirtualAddress va;
      va.name = key.second >= 0 ? fmt::format("{}@cta{}", d.name, key.second) : d.name;
      va.loc = id;
      va.proxy = d.aliasProxy;
      vaddrIndex_[{d.name, key.second}] = static_cast<int>(prog_.vaddrs.size());
      prog_.vaddrs.push_back(va);
    }
  }
  // Synonym bases: a surface/texture/constant name is a synonym of the name it aliases, followed
  // through further non-generic names; a generic name (declared or generic alias) is its own base.
  for (const auto& d : test_.locations) {
    if (d.aliasOf.empty()) continue;
    const litmus::LocationDecl* base = &d;
    while (!base->aliasDirect.empty() && base->aliasProxy != Proxy::Generic) base = decls_.at(base->aliasDirect);
    for (const auto& [key, va] : vaddrIndex_)
      if (key.first == d.name)
        prog_.vaddrs[static_cast<size_t>(va)].synonymOf = vaddrIndex_.at({base->name, key.second});
  }
  // mbarrier.init on undeclared-mbarrier locations, try_cancel responses, the hidden queue.
  for (size_t t = 0; t < test_.threads.size(); ++t) {
    for (const auto& st : thread(static_cast<int>(t)).code) {
      if (!st.instr) continue;
      const Instr& in = *st.instr;
      auto info = ptx::opInfo(in.op);
      if (info.family == ptx::OpFamily::Mbarrier || in.op == OpId::CpAsyncBulk || in.op == OpId::CpAsyncBulkTensor ||
          in.op == OpId::ClcTryCancel || in.op == OpId::Tcgen05Commit || in.op == OpId::CpReduceAsyncBulk) {
        int mbarIdx = mbarOperandIndex(in);
        if (mbarIdx >= 0 && static_cast<size_t>(mbarIdx) < in.operands.size()) {
          bool all = in.hasFlag("multicast::cluster") || in.hasFlag("multicast::cluster::all");
          for (int l : prescanLocs(static_cast<int>(t), in.operands[static_cast<size_t>(mbarIdx)], all)) {
            auto& L = prog_.locations[static_cast<size_t>(l)];
            L.isMbarrier = true;
            if (in.op == OpId::MbarrierInit && in.operands.size() > 1 && in.operands[1].kind == Operand::Kind::Imm &&
                !declaredMbarrier(l))
              L.mbarCount = static_cast<int>(in.operands[1].imm);
          }
        }
      }
      if (in.op == OpId::ClcTryCancel) {
        if (clcQueue_ < 0) {
          Location q;
          q.name = "%clc_queue";
          q.space = Space::Global;
          q.hidden = true;
          clcQueue_ = static_cast<int>(prog_.locations.size());
          prog_.locations.push_back(q);
          VirtualAddress va;
          va.name = q.name;
          va.loc = clcQueue_;
          va.synonymOf = static_cast<int>(prog_.vaddrs.size());
          prog_.vaddrs.push_back(va);
        }
        if (!in.operands.empty())
          for (int l : prescanLocs(static_cast<int>(t), in.operands[0], in.hasFlag("multicast::cluster::all")))
            responseLocs_.insert(l);
      }
    }
  }
}

bool Lowerer::declaredMbarrier(int loc) const {
  const std::string& n = prog_.locations[static_cast<size_t>(loc)].name;
  for (const auto& d : test_.locations)
    if (d.isMbarrier && (n == d.name || n.rfind(d.name + "@cta", 0) == 0)) return true;
  return false;
}

int Lowerer::nthAddr(const Instr& in, int n) {
  for (size_t i = 0; i < in.operands.size(); ++i)
    if (isAddrLike(in.operands[i]) && n-- == 0) return static_cast<int>(i);
  return -1;
}

std::vector<int> Lowerer::prescanLocs(int t, const Operand& o, bool allCopies) {
  std::vector<int> out;
  if (!isAddrLike(o) || !o.baseReg.empty()) return out;
  auto it = decls_.find(o.loc.name);
  if (it == decls_.end()) return out;
  const litmus::LocationDecl* d = aliasTarget(*it->second);
  int want = o.loc.cta >= 0 ? o.loc.cta : (allCopies ? -2 : thread(t).where.cta);
  for (const auto& [key, id] : locIndex_)
    if (key.first == d->name && (want == -2 || key.second == want || key.second < 0 || d->ownerCta >= 0))
      out.push_back(id);
  return out;
}

const litmus::LocationDecl* Lowerer::aliasTarget(const litmus::LocationDecl& d) const {
  const litmus::LocationDecl* cur = &d;
  for (int i = 0; i < 16 && !cur->aliasOf.empty(); ++i) {
    auto it = decls_.find(cur->aliasOf);
    if (it == decls_.end())
      throw DiagnosticError(d.src, fmt::format("'{}' aliases unknown location '{}'", d.name, cur->aliasOf));
    cur = it->second;
  }
  if (!cur->aliasOf.empty()) throw DiagnosticError(d.src, fmt::format("alias cycle through '{}'", d.name));
  return cur;
}

void Lowerer::buildInitWrites() {
  for (size_t l = 0; l < prog_.locations.size(); ++l) {
    const Location& L = prog_.locations[l];
    Event e;
    e.type = EventType::Write;
    e.isInit = true;
    e.loc = static_cast<int>(l);
    e.vloc = vaddrOfLoc(static_cast<int>(l));
    e.space = L.space;
    e.value = prog_.exprs.constant(L.init);
    for (Builtin t : {Builtin::W, Builtin::M, Builtin::IW, Builtin::GEN}) addTag(e, t);
    addTag(e, L.space == Space::Global ? Builtin::GLOBAL : L.isTmem ? Builtin::TMEM : Builtin::SHARED);
    if (L.isMbarrier) addTag(e, Builtin::MBAR);
    e.label = fmt::format("W {}={} (init)", L.name, L.init);
    prog_.initWrites.push_back(push(std::move(e)));
  }
}

int Lowerer::vaddrOfLoc(int l) const {
  for (size_t v = 0; v < prog_.vaddrs.size(); ++v)
    if (prog_.vaddrs[v].loc == l && prog_.vaddrs[v].name == prog_.locations[static_cast<size_t>(l)].name)
      return static_cast<int>(v);
  return -1;
}

Access Lowerer::resolve(PathState& st, const Operand& o, Space space, const Instr& in) {
  LocRef ref;
  if (o.kind == Operand::Kind::Reg && st.addrRegs.count(o.name)) {
    ref = st.addrRegs.at(o.name);
  } else if (o.kind == Operand::Kind::Addr && !o.baseReg.empty()) {
    auto it = st.addrRegs.find(o.baseReg);
    if (it == st.addrRegs.end())
      fail(o.src, fmt::format("register '{}' used as an address does not hold a location's address", o.baseReg));
    ref = it->second;
  } else if (isAddrLike(o)) {
    ref = o.loc;
  } else {
    fail(o.src, "expected a memory operand");
  }
  if (o.kind == Operand::Kind::Addr && o.imm != 0)
    fail(o.src, "address offsets are not supported (every location is one cell)");
  return resolveRef(ref, space, o.src);
}

Access Lowerer::matrixOperand(PathState& st, const Instr& in, size_t i, const char* what) {
  const std::string sec = fmt::format("PTX ISA 9.2 §{}", ptx::opInfo(in.op).isaSection);
  const Operand& o = operand(in, i, what);
  if (o.kind != Operand::Kind::Reg || !st.addrRegs.count(o.name))
    fail(o.src, fmt::format("{} must be a register holding the address of a shared location (`mov.u64 r, A`): the "
                            "descriptor names the shared-memory matrix ({})",
                            what, sec));
  Access a = resolve(st, o, Space::SharedCta, in);
  const auto& loc = prog_.locations[static_cast<size_t>(a.loc)];
  if (!a.shared || a.cta != thread(curThread_).where.cta || loc.isMbarrier || loc.isTmem)
    fail(o.src, fmt::format("{} must name a shared-memory location of the executing CTA (a .shared::cta matrix, {})",
                            what, sec));
  return a;
}

Access Lowerer::resolveRef(const LocRef& ref, Space space, const SourceLoc& at) {
  auto it = decls_.find(ref.name);
  if (it == decls_.end()) {
    std::vector<std::string> names;
    for (const auto& [n, d] : decls_) names.push_back(n);
    std::string hint = closestMatch(ref.name, names);
    fail(at, fmt::format("unknown location '{}'{}", ref.name, hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
  }
  const litmus::LocationDecl* target = aliasTarget(*it->second);
  const auto& me = thread(curThread_).where;
  int cta = -1;
  if (target->space != Space::Global) {
    if (target->ownerCta >= 0) {
      if (ref.cta >= 0 && ref.cta != target->ownerCta)
        fail(at, fmt::format("'{}' exists only in CTA {}", ref.name, target->ownerCta));
      cta = target->ownerCta;
    } else {
      cta = ref.cta >= 0 ? ref.cta : me.cta;
    }
  } else if (ref.cta >= 0) {
    fail(at, fmt::format("'{}' is a global location: '@cta{}' is meaningless", ref.name, ref.cta));
  }
  Access a;
  auto li = locIndex_.find({target->name, cta});
  if (li == locIndex_.end()) fail(at, fmt::format("no copy of '{}' in CTA {}", ref.name, cta));
  a.loc = li->second;
  auto vi = vaddrIndex_.find({ref.name, cta});
  a.vaddr = vi == vaddrIndex_.end() ? vaddrOfLoc(a.loc) : vi->second;
  a.vproxy = prog_.vaddrs[static_cast<size_t>(a.vaddr)].proxy;
  a.shared = target->space != Space::Global;
  a.cta = cta;
  if (a.shared) {
    if (ctaPlace_.at(cta).cluster != me.cluster)
      fail(at, fmt::format("'{}' is shared memory of CTA {}, outside the accessing thread's cluster", ref.name, cta));
    if (space == Space::Global) fail(at, fmt::format("'{}' is shared memory, accessed with .global", ref.name));
    if (space == Space::SharedCta && cta != me.cta)
      fail(at, fmt::format("'{}' is in CTA {}: a .shared::cta access can only name its own CTA's shared memory "
                           "(use .shared::cluster)",
                           ref.name, cta));
    a.space = space == Space::Generic ? (cta == me.cta ? Space::SharedCta : Space::SharedCluster) : space;
  } else {
    if (space == Space::SharedCta || space == Space::SharedCluster)
      fail(at, fmt::format("'{}' is a global location, accessed with {}", ref.name, ptx::toString(space)));
    a.space = Space::Global;
  }
  return a;
}

Access Lowerer::tensorMapAccess(PathState& st, const Instr& in, size_t i) {
  const Operand& o = operand(in, i, "tensor map");
  Access a = resolve(st, o, Space::Generic, in);
  if (a.shared)
    fail(o.src, fmt::format("the tensor map of {} must be a global location (PTX ISA 9.2 §9.7.9.25.5: .param, .const "
                            "or .global; .global is modelled)",
                            ptx::opInfo(in.op).mnemonic));
  return a;
}

Access Lowerer::tensorOfMap(const Instr& in, size_t i) {
  const Operand& o = operand(in, i, "tensor map");
  if (!o.baseReg.empty() || o.loc.name.empty())
    unsupported(in, "the tensor map must be a named location (its tensor is the location `<map>_tensor`)");
  LocRef ref;
  ref.name = o.loc.name + "_tensor";
  auto it = decls_.find(ref.name);
  if (it == decls_.end() || aliasTarget(*it->second)->space != Space::Global)
    fail(o.src, fmt::format("{} writes the tensor that map '{}' locates: declare it as the global location '{}' "
                            "(docs/lowering.md \"Tensor maps\")",
                            ptx::opInfo(in.op).mnemonic, o.loc.name, ref.name));
  return resolveRef(ref, Space::Global, o.src);
}

}  // namespace ptxmm::events::lowering
