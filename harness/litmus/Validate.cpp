#include "litmus/Validate.hpp"

#include <algorithm>
#include <initializer_list>

#include "litmus/Target.hpp"
#include "ptx/Ops.hpp"

namespace ptxmm::litmus {
namespace {

using ptx::DataType;
using ptx::OpId;
using ptx::OpInfo;
using ptx::Scope;
using ptx::Sem;
using ptx::Space;

/// The rules of one instruction, with its context.
class Rules {
 public:
  explicit Rules(const InstrContext& cx) : cx(cx) {}

  [[noreturn]] static void fail(const SourceLoc& at, const std::string& msg) { throw DiagnosticError(at, msg); }
  void warn(const SourceLoc& at, const std::string& msg) const {
    cx.warnings->push_back(Diagnostic{Severity::Warning, at, msg});
  }

  /// The Dat3M forms that PTX forbids, given the dialect's meaning with a warning (only in the Dat3M
  /// spelling: bare location operands, no type, no state space; in PTX spelling `validate` rejects
  /// them). Also the Dat3M barrier operands `K{, ID{, N}}`. litmus/README.md "Dat3M dialect forms".
  void dialectForms(Instr& in, const QualLocs& ql) {
    const bool dat3m = cx.bareAddresses && in.type == DataType::None && in.space == Space::Generic;
    auto scFence = [&](const char* what, const char* as) {
      warn(ql.at("sem"), std::string("PTX has no `.sc` ") + what +
                             " (PTX ISA 9.2 §9.7.9.8, §9.7.9.11, §9.7.13.5: .sc is a fence semantics); read as "
                             "`fence.sc` followed by the " +
                             as + " access (the fence orders it in Fence-SC order, PTX ISA 9.2 §8.9.3)");
      Instr f;
      f.src = in.src;
      f.op = OpId::Fence;
      f.sem = Sem::Sc;
      f.scope = in.scope == Scope::None ? Scope::Gpu : in.scope;
      cx.before->push_back(std::move(f));
    };
    switch (in.op) {
      case OpId::Ld:
      case OpId::St: {
        if (!dat3m) return;
        const bool ld = in.op == OpId::Ld;
        const std::string mn = ld ? "ld" : "st";
        if (in.sem == Sem::Sc) {
          scFence(ld ? "load" : "store", ld ? ".acquire" : ".release");
          in.sem = ld ? Sem::Acquire : Sem::Release;
        } else if (in.sem == Sem::AcqRel) {
          warn(ql.at("sem"), "`" + mn + ".acq_rel` is not PTX (PTX ISA 9.2 §9.7.9." + (ld ? "8" : "11") +
                                 "); read as `" + mn + (ld ? ".acquire`" : ".release`"));
          in.sem = ld ? Sem::Acquire : Sem::Release;
        } else if (in.sem == (ld ? Sem::Release : Sem::Acquire)) {
          warn(ql.at("sem"), "`" + mn + semName(in.sem) + "` is not PTX (PTX ISA 9.2 §9.7.9." + (ld ? "8" : "11") +
                                 "); a " + (ld ? "load has no release" : "store has no acquire") + " side: read as `" +
                                 mn + ".relaxed`");
          in.sem = Sem::Relaxed;
        }
        return;
      }
      case OpId::Atom:
      case OpId::Red:
      case OpId::Suatom:
      case OpId::Sured: {
        const bool surf = in.op == OpId::Suatom || in.op == OpId::Sured;
        const bool red = in.op == OpId::Red || in.op == OpId::Sured;
        if (surf) in.dialect = true;
        if (!dat3m && !surf) return;  // PTX spelling: validate() applies the PTX rules
        for (const char* o : {"sub", "mul", "div"})
          if (in.hasFlag(o)) {
            warn(ql.at("atomop"), std::string("`.") + o +
                                      "` is not a PTX atom/red operation (PTX ISA 9.2 §9.7.13.5 lists .and .or .xor "
                                      ".cas .exch .add .inc .dec .min .max); read as the Dat3M atomic " +
                                      (std::string(o) == "sub"   ? "subtraction (an add of the negated operand)"
                                       : std::string(o) == "mul" ? "multiplication"
                                                                 : "division"));
            in.dialect = true;
          }
        if (in.sem == Sem::Weak) {
          warn(ql.at("sem"),
               "PTX atom/red have no `.weak` (PTX ISA 9.2 §9.7.13.5); read as the Dat3M weak read-modify-write "
               "(atomic, but not morally strong: it can race)");
          in.dialect = true;
          in.scope = Scope::None;
        }
        if (in.sem == Sem::Sc) {
          scFence(red ? "reduction" : "atomic", ".acq_rel");
          in.sem = Sem::AcqRel;
        }
        if (red && (in.sem == Sem::Acquire || in.sem == Sem::AcqRel)) {
          if (!cx.before->empty()) {
            // already warned about .sc
          } else {
            warn(ql.at("sem"), "`red" + semName(in.sem) +
                                   "` is not PTX (PTX ISA 9.2 §9.7.13.6: red accepts .relaxed and .release); read "
                                   "as the `atom` whose result is discarded");
          }
          in.op = in.op == OpId::Red ? OpId::Atom : OpId::Suatom;
          Operand sink;
          sink.kind = Operand::Kind::Sink;
          sink.src = in.src;
          in.operands.insert(in.operands.begin(), sink);
        }
        return;
      }
      case OpId::BarSync:
      case OpId::BarArrive: {
        // Dat3M `bar.cta.{sync,arrive} K{, ID{, N}}`: K names the instruction, ID the logical barrier,
        // N the participating threads. In the column layout (the Dat3M dialect) and whenever three
        // operands are given; otherwise `bar.cta.sync a{, b}` is PTX (id, thread count).
        const bool sync = in.op == OpId::BarSync;
        const bool dat3mBar = (cx.mnemonicSpelling == "bar.cta.sync" || cx.mnemonicSpelling == "bar.cta.arrive") &&
                              (!cx.blockLayout || in.operands.size() == 3);
        if (dat3mBar) {
          if (in.operands[0].kind != Operand::Kind::Imm)
            throw DiagnosticError(in.operands[0].src,
                                  "the first operand of the Dat3M `" + cx.mnemonicSpelling +
                                      " K, ID, N` names the barrier instruction and must be a constant");
          if (in.operands.size() > 1) in.operands.erase(in.operands.begin());
        } else if (in.operands.size() == 3) {
          fail(ql.mnemonic, "`" + cx.mnemonicSpelling + "` takes `a{, b}` (PTX ISA 9.2 §9.7.13.1)");
        }
        if (!sync && in.operands.size() == 1) {
          if (cx.mnemonicSpelling != "bar.cta.arrive")
            fail(ql.mnemonic, "`" + cx.mnemonicSpelling +
                                  " a` needs a thread count: `a, b` (PTX ISA 9.2 §9.7.13.1: \"a non-zero thread "
                                  "count is required for barrier{.cta}.arrive\")");
          warn(ql.mnemonic,
               "PTX requires a thread count for `bar.arrive` (PTX ISA 9.2 §9.7.13.1); the Dat3M `bar.cta.arrive` "
               "without one is read as an arrival for all threads of the CTA");
          in.dialect = true;
        }
        return;
      }
      case OpId::Tld:
      case OpId::Suld:
      case OpId::Sust:
      case OpId::Cold:
      case OpId::Fence:
      case OpId::Membar:
      case OpId::FenceProxyAlias:
      case OpId::FenceProxyKind:
      case OpId::FenceProxyAsync:
      case OpId::FenceProxyAsyncGen:
      case OpId::FenceProxyTmap:
      case OpId::FenceMbarrierInit:
      case OpId::BarrierClusterArrive:
      case OpId::BarrierClusterWait:
      case OpId::MbarrierInit:
      case OpId::MbarrierInval:
      case OpId::MbarrierExpectTx:
      case OpId::MbarrierCompleteTx:
      case OpId::MbarrierArrive:
      case OpId::MbarrierArriveDrop:
      case OpId::MbarrierTestWait:
      case OpId::MbarrierTryWait:
      case OpId::CpAsync:
      case OpId::CpAsyncCommit:
      case OpId::CpAsyncWaitGroup:
      case OpId::CpAsyncWaitAll:
      case OpId::CpAsyncMbarArrive:
      case OpId::CpAsyncBulk:
      case OpId::CpAsyncBulkCommit:
      case OpId::CpAsyncBulkWait:
      case OpId::CpAsyncBulkTensor:
      case OpId::TensormapReplace:
      case OpId::StAsync:
      case OpId::RedAsync:
      case OpId::WgmmaMmaAsync:
      case OpId::WgmmaFence:
      case OpId::WgmmaCommit:
      case OpId::WgmmaWait:
      case OpId::Tcgen05Mma:
      case OpId::Tcgen05Cp:
      case OpId::Tcgen05Ld:
      case OpId::Tcgen05St:
      case OpId::Tcgen05Commit:
      case OpId::Tcgen05WaitLd:
      case OpId::Tcgen05WaitSt:
      case OpId::Tcgen05FenceBefore:
      case OpId::Tcgen05FenceAfter:
      case OpId::CpReduceAsyncBulk:
      case OpId::CpReduceAsyncBulkTensor:
      case OpId::CpAsyncBulkPrefetch:
      case OpId::CpAsyncBulkPrefetchTensor:
      case OpId::TensormapCpFenceproxy:
      case OpId::ClcTryCancel:
      case OpId::ClcQueryCancel:
      case OpId::Mov:
      case OpId::Add:
      case OpId::Sub:
      case OpId::Mul:
      case OpId::Div:
      case OpId::And:
      case OpId::Or:
      case OpId::Xor:
      case OpId::Setp:
      case OpId::Selp:
      case OpId::Bra:
      case OpId::Beq:
      case OpId::Bne:
      case OpId::Bge:
      case OpId::Ble:
      case OpId::Bgt:
      case OpId::Blt:
      case OpId::Goto:
      case OpId::Ret:
      case OpId::Exit:
      case OpId::BarWarpSync:
      case OpId::ElectSync:
      case OpId::GriddepLaunch:
      case OpId::GriddepWait:
      case OpId::Mapa:
      case OpId::Count_: return;
    }
  }

  [[noreturn]] void bad(const QualLocs& ql, const std::string& group, const std::string& msg) const {
    fail(ql.at(group), msg);
  }
  static std::string semName(Sem s) { return "." + std::string(ptx::toString(s)); }

  void requireSem(const OpInfo& op, Instr& in, const QualLocs& ql, std::initializer_list<Sem> allowed, Sem dflt) {
    if (in.sem == Sem::None) {
      in.sem = dflt;
      return;
    }
    for (Sem s : allowed)
      if (s == in.sem) return;
    std::string list;
    for (Sem s : allowed) list += (list.empty() ? "" : ", ") + semName(s);
    bad(ql, "sem",
        "`" + std::string(op.mnemonic) + semName(in.sem) + "` is invalid: " + std::string(op.mnemonic) + " accepts " +
            list + " (PTX ISA 9.2 §" + std::string(op.isaSection) + ")");
  }

  void requireScope(const OpInfo& op, Instr& in, const QualLocs& ql, std::initializer_list<Scope> allowed, Scope dflt) {
    if (in.scope == Scope::None) {
      if (dflt == Scope::None)
        bad(ql, "sem",
            "`" + std::string(op.mnemonic) + (in.sem != Sem::None ? semName(in.sem) : "") +
                "` needs a scope (.cta, .cluster, .gpu or .sys) (PTX ISA 9.2 §" + std::string(op.isaSection) + ")");
      in.scope = dflt;
      return;
    }
    for (Scope s : allowed)
      if (s == in.scope) return;
    std::string list;
    for (Scope s : allowed) list += (list.empty() ? "." : ", .") + std::string(ptx::toString(s));
    bad(ql, "scope",
        "scope `." + std::string(ptx::toString(in.scope)) + "` is invalid for `" + std::string(op.mnemonic) +
            "`: it accepts " + list + " (PTX ISA 9.2 §" + std::string(op.isaSection) + ")");
  }

  void checkSyncRestrict(const OpInfo& op, Instr& in, const QualLocs& ql) {
    const char* rule =
        " (PTX ISA 9.2 §9.7.13.4: `.sync_restrict::shared::cta` requires `.release`, "
        "`.sync_restrict::shared::cluster` requires `.acquire`, and the scope must be `.cluster`)";
    bool cta = in.hasFlag("sync_restrict::shared::cta");
    bool cluster = in.hasFlag("sync_restrict::shared::cluster");
    if (!cta && !cluster) return;
    if (cta && in.sem != Sem::Release)
      bad(ql, "sem", "`" + semName(in.sem) + "` cannot be combined with `.sync_restrict::shared::cta`" + rule);
    if (cluster && in.sem != Sem::Acquire)
      bad(ql, "sem", "`" + semName(in.sem) + "` cannot be combined with `.sync_restrict::shared::cluster`" + rule);
    if (in.scope != Scope::Cluster) {
      if (in.scope == Scope::None)
        bad(ql, "sync_restrict",
            "`" + std::string(op.mnemonic) + "` with `.sync_restrict` needs scope `.cluster`" + rule);
      bad(ql, "scope", "scope `." + std::string(ptx::toString(in.scope)) + "` is invalid with `.sync_restrict`" + rule);
    }
  }

  void noScopeOnWeak(const OpInfo& op, const Instr& in, const QualLocs& ql) {
    if (in.scope != Scope::None && (in.sem == Sem::Weak || in.sem == Sem::Volatile || in.sem == Sem::None))
      bad(ql, "scope",
          "scope `." + std::string(ptx::toString(in.scope)) + "` on a " +
              (in.sem == Sem::Volatile ? std::string(".volatile") : std::string(".weak")) + " `" +
              std::string(op.mnemonic) +
              "`: only .relaxed, .acquire and .release accesses take a scope (PTX ISA 9.2 §" +
              std::string(op.isaSection) + ")");
  }

  void requireFlag(const OpInfo& op, const Instr& in, const QualLocs& ql, const std::string& group,
                   const std::string& what) {
    for (auto v : ptx::qualifierGroupValues(group))
      if (in.hasFlag(v)) return;
    fail(ql.mnemonic,
         "`" + std::string(op.mnemonic) + "` needs " + what + " (PTX ISA 9.2 §" + std::string(op.isaSection) + ")");
  }

  void validate(const OpInfo& op, Instr& in, const QualLocs& ql) {
    switch (op.id) {
      case OpId::Ld:
      case OpId::St: {
        bool ld = op.id == OpId::Ld;
        if (ld)
          requireSem(op, in, ql, {Sem::Weak, Sem::Relaxed, Sem::Acquire, Sem::Volatile, Sem::Mmio}, Sem::Weak);
        else
          requireSem(op, in, ql, {Sem::Weak, Sem::Relaxed, Sem::Release, Sem::Volatile, Sem::Mmio}, Sem::Weak);
        if (in.sem == Sem::Mmio) {
          if (in.scope != Scope::Sys)
            bad(ql, "sem", "`.mmio` accesses need `.relaxed.sys` (PTX ISA 9.2 §" + std::string(op.isaSection) + ")");
        } else if (in.sem == Sem::Weak || in.sem == Sem::Volatile) {
          noScopeOnWeak(op, in, ql);
        } else {
          requireScope(op, in, ql, {Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys}, Scope::None);
        }
        break;
      }
      case OpId::Tld:
      case OpId::Suld:
      case OpId::Sust:
      case OpId::Cold: requireSem(op, in, ql, {Sem::Weak}, Sem::Weak); break;
      case OpId::Atom:
      case OpId::Red:
      case OpId::Suatom:
      case OpId::Sured: {
        bool atom = op.id == OpId::Atom || op.id == OpId::Suatom;
        if (in.sem == Sem::Weak && in.dialect) {
          // Dat3M weak RMW (dialectForms warned): no scope.
        } else if (atom) {
          requireSem(op, in, ql, {Sem::Relaxed, Sem::Acquire, Sem::Release, Sem::AcqRel}, Sem::Relaxed);
        } else {
          requireSem(op, in, ql, {Sem::Relaxed, Sem::Release}, Sem::Relaxed);
        }
        if (in.sem != Sem::Weak)
          requireScope(op, in, ql, {Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys}, Scope::Gpu);
        for (const char* o : {"sub", "mul", "div"})
          if (in.hasFlag(o) && !in.dialect)
            bad(ql, "atomop",
                std::string("`.") + o +
                    "` is not a PTX atom/red operation (PTX ISA 9.2 §9.7.13.5: .and .or .xor .cas .exch .add .inc "
                    ".dec .min .max); the Dat3M spelling `atom.<sem>.<scope>." +
                    o + " r, x, v` (bare location, no type) reads it as the Dat3M operation");
        requireFlag(op, in, ql, "atomop", "an operation (.add, .cas, .exch, .and, .or, .xor, .min, .max, .inc, .dec)");
        bool cas = in.hasFlag("cas");
        if (!atom && (cas || in.hasFlag("exch")))
          bad(ql, "atomop", "`red` has no `.cas`/`.exch` (use atom) (PTX ISA 9.2 §9.7.13.6)");
        if (atom && cas && in.operands.size() != 4)
          fail(ql.mnemonic, "`atom.cas` takes 4 operands (d, [a], b, c), got " + std::to_string(in.operands.size()) +
                                " (PTX ISA 9.2 §9.7.13.5)");
        if (atom && !cas && in.operands.size() != 3)
          fail(ql.mnemonic, "`atom` takes 3 operands (d, [a], b), got " + std::to_string(in.operands.size()) +
                                " (only .cas takes 4) (PTX ISA 9.2 §9.7.13.5)");
        break;
      }
      case OpId::Fence:
        requireSem(op, in, ql, {Sem::Sc, Sem::AcqRel, Sem::Acquire, Sem::Release}, Sem::AcqRel);
        requireScope(op, in, ql, {Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys}, Scope::None);
        checkSyncRestrict(op, in, ql);
        break;
      case OpId::Membar: requireFlag(op, in, ql, "membar_level", "a level (.cta, .gl or .sys)"); break;
      case OpId::FenceProxyKind:
        requireFlag(op, in, ql, "proxykind", "a proxy kind (.surface, .texture, .constant, .generic)");
        break;
      case OpId::FenceProxyAsync:
        if (in.space != Space::Generic && in.space != Space::Global && in.space != Space::SharedCta &&
            in.space != Space::SharedCluster)
          bad(ql, "space",
              "`fence.proxy.async` accepts .global, .shared::cta, .shared::cluster (PTX ISA 9.2 §9.7.13.4)");
        break;
      case OpId::FenceProxyAsyncGen:
        if (in.sem != Sem::Acquire && in.sem != Sem::Release)
          bad(ql, "sem", "`fence.proxy.async::generic` needs `.release` or `.acquire` (PTX ISA 9.2 §9.7.13.4)");
        if (!in.hasFlag("sync_restrict::shared::cta") && !in.hasFlag("sync_restrict::shared::cluster"))
          fail(ql.mnemonic,
               "`fence.proxy.async::generic` needs `.sync_restrict::shared::cta` (with .release) or "
               "`.sync_restrict::shared::cluster` (with .acquire) (PTX ISA 9.2 §9.7.13.4)");
        checkSyncRestrict(op, in, ql);
        break;
      case OpId::FenceProxyTmap:
        if (in.sem != Sem::Acquire && in.sem != Sem::Release)
          bad(ql, "sem", "`fence.proxy.tensormap::generic` needs `.release` or `.acquire` (PTX ISA 9.2 §9.7.13.4)");
        requireScope(op, in, ql, {Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys}, Scope::None);
        if (in.sem == Sem::Release && !in.operands.empty())
          fail(ql.mnemonic, "`fence.proxy.tensormap::generic.release` takes no operands (PTX ISA 9.2 §9.7.13.4)");
        if (in.sem == Sem::Acquire) {
          if (in.operands.size() != 2 || in.operands[0].kind != Operand::Kind::Addr ||
              in.operands[1].kind != Operand::Kind::Imm || in.operands[1].imm != 128)
            fail(ql.mnemonic, "`fence.proxy.tensormap::generic.acquire` takes `[addr], 128` (PTX ISA 9.2 §9.7.13.4)");
        }
        break;
      case OpId::FenceMbarrierInit:
        requireSem(op, in, ql, {Sem::Release}, Sem::Release);
        requireScope(op, in, ql, {Scope::Cluster}, Scope::Cluster);
        break;
      case OpId::BarrierClusterArrive: requireSem(op, in, ql, {Sem::Release, Sem::Relaxed}, Sem::Release); break;
      case OpId::BarrierClusterWait: requireSem(op, in, ql, {Sem::Acquire}, Sem::Acquire); break;
      case OpId::MbarrierArrive:
      case OpId::MbarrierArriveDrop:
        requireSem(op, in, ql, {Sem::Release, Sem::Relaxed}, Sem::Release);
        requireScope(op, in, ql, {Scope::Cta, Scope::Cluster}, Scope::Cta);
        if (in.hasFlag("expect_tx") && in.operands.size() != 3)
          fail(ql.mnemonic, "`mbarrier.arrive.expect_tx` takes `state, [addr], txCount` (PTX ISA 9.2 §9.7.13.15.13)");
        break;
      case OpId::MbarrierExpectTx:
      case OpId::MbarrierCompleteTx:
        requireSem(op, in, ql, {Sem::Relaxed}, Sem::Relaxed);
        requireScope(op, in, ql, {Scope::Cta, Scope::Cluster}, Scope::Cta);
        break;
      case OpId::MbarrierTestWait:
      case OpId::MbarrierTryWait:
        requireSem(op, in, ql, {Sem::Acquire, Sem::Relaxed}, Sem::Acquire);
        requireScope(op, in, ql, {Scope::Cta, Scope::Cluster}, Scope::Cta);
        break;
      case OpId::CpAsync:
        requireFlag(op, in, ql, "cacheop", "a cache operator (.ca or .cg)");
        if (in.space != Space::SharedCta)
          bad(ql, "dstspace", "`cp.async` copies to `.shared{::cta}` (PTX ISA 9.2 §9.7.9.25.3.1)");
        if (in.srcSpace != Space::Global)
          bad(ql, "srcspace", "`cp.async` copies from `.global` (PTX ISA 9.2 §9.7.9.25.3.1)");
        break;
      case OpId::CpAsyncBulk: {
        requireFlag(op, in, ql, "completion", "a completion mechanism (.mbarrier::complete_tx::bytes or .bulk_group)");
        bool mb = in.hasFlag("mbarrier::complete_tx::bytes");
        if (in.space == Space::Generic || in.srcSpace == Space::Generic)
          fail(ql.mnemonic, "`cp.async.bulk` needs a destination and a source state space (PTX ISA 9.2 §9.7.9.25.4.1)");
        if (mb && in.space == Space::Global)
          bad(ql, "completion",
              "`.mbarrier::complete_tx::bytes` completion needs a shared destination; a copy to `.global` uses "
              "`.bulk_group` (PTX ISA 9.2 §9.7.9.25.4.1)");
        if (!mb && in.space != Space::Global)
          bad(ql, "completion", "`.bulk_group` completion is for copies to `.global` (PTX ISA 9.2 §9.7.9.25.4.1)");
        if (in.hasFlag("multicast::cluster") && (in.space != Space::SharedCluster || in.srcSpace != Space::Global))
          bad(ql, "multicast", "`.multicast::cluster` needs `.shared::cluster.global` (PTX ISA 9.2 §9.7.9.25.4.1)");
        size_t want = mb ? 4 : 3;
        if (in.hasFlag("multicast::cluster")) want = 5;
        if (in.operands.size() != want)
          fail(ql.mnemonic, "this `cp.async.bulk` form takes " + std::to_string(want) + " operands, got " +
                                std::to_string(in.operands.size()) + " (PTX ISA 9.2 §9.7.9.25.4.1)");
        break;
      }
      case OpId::CpAsyncBulkTensor: validateTensorCopy(op, in, ql); break;
      case OpId::TensormapReplace: validateTensormapReplace(op, in, ql); break;
      case OpId::StAsync:
      case OpId::RedAsync: validateAsyncStore(op, in, ql); break;
      case OpId::WgmmaMmaAsync:
      case OpId::WgmmaFence:
      case OpId::WgmmaCommit:
      case OpId::WgmmaWait: validateWgmma(op, in, ql); break;
      case OpId::Tcgen05Mma:
      case OpId::Tcgen05Cp:
      case OpId::Tcgen05Ld:
      case OpId::Tcgen05St:
      case OpId::Tcgen05Commit:
      case OpId::Tcgen05WaitLd:
      case OpId::Tcgen05WaitSt:
      case OpId::Tcgen05FenceBefore:
      case OpId::Tcgen05FenceAfter: validateTcgen05(op, in, ql); break;
      case OpId::BarWarpSync:
      case OpId::ElectSync:
      case OpId::GriddepLaunch:
      case OpId::GriddepWait:
      case OpId::Mapa: validateWarpHelper(op, in, ql); break;
      case OpId::CpReduceAsyncBulk: validateBulkReduce(op, in, ql); break;
      case OpId::CpReduceAsyncBulkTensor: validateTensorReduce(op, in, ql); break;
      case OpId::CpAsyncBulkPrefetch:
      case OpId::CpAsyncBulkPrefetchTensor: validateBulkPrefetch(op, in, ql); break;
      case OpId::TensormapCpFenceproxy: validateTensormapCpFenceproxy(op, in, ql); break;
      case OpId::ClcTryCancel:
        if (!in.hasFlag("async"))
          fail(ql.mnemonic, "`clusterlaunchcontrol.try_cancel` needs the mandatory `.async` (PTX ISA 9.2 §9.7.13.17)");
        requireFlag(op, in, ql, "completion", "the completion mechanism `.mbarrier::complete_tx::bytes`");
        if (in.hasFlag("bulk_group"))
          bad(ql, "completion",
              "`clusterlaunchcontrol.try_cancel` completes through `.mbarrier::complete_tx::bytes` (PTX ISA 9.2 "
              "§9.7.13.17)");
        if (in.type != DataType::B128)
          fail(ql.mnemonic, "`clusterlaunchcontrol.try_cancel` needs `.b128` (PTX ISA 9.2 §9.7.13.17)");
        if (in.space != Space::Generic && in.space != Space::SharedCta)
          bad(ql, "space", "`clusterlaunchcontrol.try_cancel` accepts only `.shared::cta` (PTX ISA 9.2 §9.7.13.17)");
        for (const auto& o : in.operands)
          if (o.kind != Operand::Kind::Addr)
            fail(ql.mnemonic, "`clusterlaunchcontrol.try_cancel` takes `[addr], [mbar]` (PTX ISA 9.2 §9.7.13.17)");
        break;
      case OpId::ClcQueryCancel: {
        requireFlag(op, in, ql, "query", "a query (.is_canceled, .get_first_ctaid, .get_first_ctaid::x/y/z)");
        if (in.type != DataType::B128)
          fail(ql.mnemonic, "`clusterlaunchcontrol.query_cancel` needs `.b128` (PTX ISA 9.2 §9.7.13.18)");
        bool isCanceled = in.hasFlag("is_canceled");
        bool vec = in.hasFlag("get_first_ctaid");
        if (isCanceled && !in.hasFlag("pred"))
          fail(ql.mnemonic, "`query_cancel.is_canceled` needs `.pred` (PTX ISA 9.2 §9.7.13.18)");
        if (!isCanceled && !in.hasFlag("b32"))
          fail(ql.mnemonic, "`query_cancel.get_first_ctaid` needs `.b32` (PTX ISA 9.2 §9.7.13.18)");
        if (vec != in.hasFlag("v4"))
          bad(ql, "vec", "`.v4` goes with `.get_first_ctaid` (vector result) only (PTX ISA 9.2 §9.7.13.18)");
        bool vecOperand = in.operands[0].kind == Operand::Kind::Vector;
        if (vec && (!vecOperand || in.operands[0].elems.size() != 4))
          fail(ql.mnemonic, "`query_cancel.get_first_ctaid.v4` writes a 4-element vector `{x, y, z, _}`");
        if (!vec && vecOperand) fail(ql.mnemonic, "this `query_cancel` form writes a single register");
        break;
      }
      case OpId::Setp: requireFlag(op, in, ql, "cmp", "a comparison (.eq, .ne, .lt, .le, .gt, .ge, ...)"); break;
      case OpId::FenceProxyAlias:
      case OpId::BarSync:
      case OpId::BarArrive:
      case OpId::MbarrierInit:
      case OpId::MbarrierInval:
      case OpId::CpAsyncCommit:
      case OpId::CpAsyncWaitGroup:
      case OpId::CpAsyncWaitAll:
      case OpId::CpAsyncMbarArrive:
      case OpId::CpAsyncBulkCommit:
      case OpId::CpAsyncBulkWait:
      case OpId::Mov:
      case OpId::Add:
      case OpId::Sub:
      case OpId::Mul:
      case OpId::Div:
      case OpId::And:
      case OpId::Or:
      case OpId::Xor:
      case OpId::Selp:
      case OpId::Bra:
      case OpId::Beq:
      case OpId::Bne:
      case OpId::Bge:
      case OpId::Ble:
      case OpId::Bgt:
      case OpId::Blt:
      case OpId::Goto:
      case OpId::Ret:
      case OpId::Exit:
      case OpId::Count_: break;
    }
    checkOperandRanges(op, in);
    if (in.type == DataType::B128 && op.id != OpId::Ld && op.id != OpId::St && op.id != OpId::ClcTryCancel &&
        op.id != OpId::ClcQueryCancel && op.id != OpId::Mov)
      bad(ql, "type", "`.b128` is only valid for ld, st, mov and clusterlaunchcontrol (PTX ISA 9.2)");
    for (size_t i = 0; i < in.operands.size(); ++i)
      if (in.operands[i].kind == Operand::Kind::Addr && !in.operands[i].elems.empty() &&
          static_cast<int>(i) != tensorMapOperand(in))
        throw DiagnosticError(in.operands[i].src,
                              "tensor coordinates `{...}` belong only to the tensor-map operand of "
                              "`cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor` and "
                              "`cp.async.bulk.prefetch.tensor` (PTX ISA 9.2 §9.7.9.25.5)");
  }

  /// Immediate ranges, sizes and alignments that ptxas (or the PTX ISA) requires of the operands, checked
  /// at parse time so that a test is rejected with the rule before a kernel is generated.
  void checkOperandRanges(const OpInfo& op, const Instr& in) const {
    auto imm = [&](size_t i) -> const Operand* {
      return i < in.operands.size() && in.operands[i].kind == Operand::Kind::Imm ? &in.operands[i] : nullptr;
    };
    auto err = [&](const Operand& o, const std::string& msg) {
      throw DiagnosticError(o.src, msg + " (PTX ISA 9.2 §" + std::string(op.isaSection) + ")");
    };
    switch (op.id) {
      case OpId::BarSync:
      case OpId::BarArrive:
        if (const Operand* a = imm(0); a && (a->imm < 0 || a->imm > 15))
          err(*a, "barrier id " + std::to_string(a->imm) + " out of range: a names one of the CTA's barriers 0..15");
        if (const Operand* b = imm(1); b && b->imm <= 0)
          err(*b, "the thread count of a barrier must be positive (`bar.arrive` needs a non-zero count)");
        break;
      case OpId::CpAsync: {
        const Operand* size = imm(2);
        if (in.operands.size() > 2 && !size)
          throw DiagnosticError(in.operands[2].src, "cp-size is an integer constant (PTX ISA 9.2 §9.7.9.25.3.1)");
        if (size && size->imm != 4 && size->imm != 8 && size->imm != 16)
          err(*size, "cp-size " + std::to_string(size->imm) + " is invalid: cp-size can only be 4, 8 and 16");
        if (size && in.hasFlag("cg") && size->imm != 16) err(*size, "`cp.async.cg` copies 16 bytes (cp-size 16)");
        if (const Operand* src = imm(3); src && size && (src->imm < 0 || src->imm > size->imm))
          err(*src, "src-size " + std::to_string(src->imm) + " exceeds cp-size " + std::to_string(size->imm));
        for (size_t i = 0; i < 2 && i < in.operands.size(); ++i)
          if (size && in.operands[i].kind == Operand::Kind::Addr && in.operands[i].imm % size->imm != 0)
            err(in.operands[i], "the address must be aligned to cp-size (" + std::to_string(size->imm) + " bytes)");
        break;
      }
      case OpId::CpAsyncBulkPrefetch:
        if (const Operand* size = imm(1); size && (size->imm <= 0 || size->imm % 16 != 0))
          err(*size, "size " + std::to_string(size->imm) + " is invalid: size must be a positive multiple of 16");
        if (!in.operands.empty() && in.operands[0].kind == Operand::Kind::Addr && in.operands[0].imm % 16 != 0)
          err(in.operands[0], "srcMem must be aligned to 16 bytes");
        break;
      case OpId::CpReduceAsyncBulk:
      case OpId::CpAsyncBulk: {
        if (const Operand* size = imm(2); size && (size->imm <= 0 || size->imm % 16 != 0))
          err(*size, "size " + std::to_string(size->imm) + " is invalid: size must be a positive multiple of 16");
        for (size_t i = 0; i < 2 && i < in.operands.size(); ++i)
          if (in.operands[i].kind == Operand::Kind::Addr && in.operands[i].imm % 16 != 0)
            err(in.operands[i], "dstMem and srcMem must be aligned to 16 bytes");
        break;
      }
      case OpId::MbarrierInit:
        if (const Operand* c = imm(1); c && (c->imm < 1 || c->imm > (1 << 20) - 1))
          err(*c, "the expected arrival count must be in 1..2^20-1");
        break;
      case OpId::MbarrierExpectTx:
      case OpId::MbarrierCompleteTx:
        if (const Operand* c = imm(1); c && (c->imm < 0 || c->imm > (1 << 20) - 1))
          err(*c, "txCount must be in 0..2^20-1 (the tx-count range of §9.7.13.15.2)");
        break;
      case OpId::MbarrierArrive:
      case OpId::MbarrierArriveDrop: {
        const Operand* c = imm(in.operands.size() - 1);
        if (c && in.operands.size() >= 2 && in.operands[in.operands.size() - 2].kind == Operand::Kind::Addr &&
            (c->imm < (in.hasFlag("expect_tx") ? 0 : 1) || c->imm > (1 << 20) - 1))
          err(*c, in.hasFlag("expect_tx") ? "txCount must be in 0..2^20-1" : "the arrival count must be in 1..2^20-1");
        break;
      }
      case OpId::CpAsyncWaitGroup:
      case OpId::CpAsyncBulkWait:
        if (const Operand* n = imm(0); n && n->imm < 0) err(*n, "the group count N must be non-negative");
        break;
      case OpId::BarWarpSync:
      case OpId::ElectSync:
        if (const Operand* m = imm(in.operands.size() - 1); m && (m->imm < 0 || m->imm > 0xffffffffLL))
          err(*m, "membermask is a 32-bit mask of lane ids");
        break;
      case OpId::Ld:
      case OpId::St:
      case OpId::Atom:
      case OpId::Red:
      case OpId::Tld:
      case OpId::Suld:
      case OpId::Sust:
      case OpId::Cold:
      case OpId::Suatom:
      case OpId::Sured:
      case OpId::Fence:
      case OpId::Membar:
      case OpId::FenceProxyAlias:
      case OpId::FenceProxyKind:
      case OpId::FenceProxyAsync:
      case OpId::FenceProxyAsyncGen:
      case OpId::FenceProxyTmap:
      case OpId::FenceMbarrierInit:
      case OpId::BarrierClusterArrive:
      case OpId::BarrierClusterWait:
      case OpId::MbarrierInval:
      case OpId::MbarrierTestWait:
      case OpId::MbarrierTryWait:
      case OpId::CpAsyncCommit:
      case OpId::CpAsyncWaitAll:
      case OpId::CpAsyncMbarArrive:
      case OpId::CpAsyncBulkCommit:
      case OpId::CpAsyncBulkTensor:
      case OpId::TensormapReplace:
      case OpId::StAsync:
      case OpId::RedAsync:
      case OpId::WgmmaMmaAsync:
      case OpId::WgmmaFence:
      case OpId::WgmmaCommit:
      case OpId::WgmmaWait:
      case OpId::Tcgen05Mma:
      case OpId::Tcgen05Cp:
      case OpId::Tcgen05Ld:
      case OpId::Tcgen05St:
      case OpId::Tcgen05Commit:
      case OpId::Tcgen05WaitLd:
      case OpId::Tcgen05WaitSt:
      case OpId::Tcgen05FenceBefore:
      case OpId::Tcgen05FenceAfter:
      case OpId::CpReduceAsyncBulkTensor:
      case OpId::CpAsyncBulkPrefetchTensor:
      case OpId::TensormapCpFenceproxy:
      case OpId::ClcTryCancel:
      case OpId::ClcQueryCancel:
      case OpId::Mov:
      case OpId::Add:
      case OpId::Sub:
      case OpId::Mul:
      case OpId::Div:
      case OpId::And:
      case OpId::Or:
      case OpId::Xor:
      case OpId::Setp:
      case OpId::Selp:
      case OpId::Bra:
      case OpId::Beq:
      case OpId::Bne:
      case OpId::Bge:
      case OpId::Ble:
      case OpId::Bgt:
      case OpId::Blt:
      case OpId::Goto:
      case OpId::Ret:
      case OpId::Exit:
      case OpId::GriddepLaunch:
      case OpId::GriddepWait:
      case OpId::Mapa:
      case OpId::Count_: break;
    }
  }

  /// cp.async.bulk.tensor (PTX ISA 9.2 §9.7.9.25.5.2): the global -> shared `.tile` forms with mbarrier
  /// completion. `.tile` (the default load mode) is made explicit.
  void validateTensorCopy(const OpInfo& op, Instr& in, const QualLocs& ql) {
    const std::string sec = " (PTX ISA 9.2 §9.7.9.25.5.2)";
    requireFlag(op, in, ql, "dim", "a dimension (.1d, .2d, .3d, .4d or .5d)");
    if (in.space == Space::Global || in.srcSpace == Space::SharedCta) return validateTensorStore(op, in, ql);
    if ((in.space != Space::SharedCluster && in.space != Space::SharedCta) || in.srcSpace != Space::Global)
      fail(ql.mnemonic, "`cp.async.bulk.tensor` copies `.shared::cluster.global` or `.shared::cta.global`" + sec);
    tileMode(in, ql, sec);
    requireFlag(op, in, ql, "completion", "the completion mechanism `.mbarrier::complete_tx::bytes`");
    if (in.hasFlag("bulk_group"))
      bad(ql, "completion", "a copy to shared memory completes through `.mbarrier::complete_tx::bytes`" + sec);
    bool multicast = in.hasFlag("multicast::cluster");
    if (multicast && in.space != Space::SharedCluster)
      bad(ql, "multicast", "`.multicast::cluster` needs the `.shared::cluster` destination" + sec);
    for (auto v : ptx::qualifierGroupValues("hints"))
      if (in.hasFlag(v) && v != "L2::cache_hint")
        bad(ql, "hints", "`cp.async.bulk.tensor` accepts only the hint `.L2::cache_hint`" + sec);
    size_t want = 3 + (multicast ? 1 : 0) + (in.hasFlag("L2::cache_hint") ? 1 : 0);
    if (in.operands.size() != want)
      fail(ql.mnemonic, "this `cp.async.bulk.tensor` form takes " + std::to_string(want) +
                            " operands ([dstMem], [tensorMap, {coords}], [mbar]" + (multicast ? ", ctaMask" : "") +
                            (in.hasFlag("L2::cache_hint") ? ", cache-policy" : "") + "), got " +
                            std::to_string(in.operands.size()) + sec);
    if (in.operands[2].kind != Operand::Kind::Addr)
      throw DiagnosticError(in.operands[2].src, "expected the mbarrier address `[mbar]`" + sec);
    const Operand& map = in.operands[1];
    size_t dims = 0;
    for (size_t d = 1; d <= 5; ++d)
      if (in.hasFlag(std::to_string(d) + "d")) dims = d;
    if (map.elems.empty())
      throw DiagnosticError(map.src, "`cp.async.bulk.tensor` names its tensor map as `[tensorMap, {c0, ...}]`" + sec);
    if (map.elems.size() != dims)
      throw DiagnosticError(map.src, "a `." + std::to_string(dims) + "d` `.tile` copy takes " + std::to_string(dims) +
                                         " tensor coordinate(s), got " + std::to_string(map.elems.size()) + sec);
  }

  /// The warp-level helpers: bar.warp.sync (PTX ISA 9.2 §9.7.13.2) and elect.sync (§9.7.13.14) take a
  /// 32-bit membermask (a register or an integer), griddepcontrol (§9.7.13.13) nothing, mapa (§9.7.9.23)
  /// `.u32`/`.u64`, space `.shared::cluster` or none (generic addresses), a shared variable or a register
  /// holding a shared address, and the target CTA's rank.
  void validateWarpHelper(const OpInfo& op, Instr& in, const QualLocs& ql) {
    const std::string sec = " (PTX ISA 9.2 §" + std::string(op.isaSection) + ")";
    if (op.id == OpId::ElectSync && in.operands[0].kind == Operand::Kind::Vector)
      throw DiagnosticError(in.operands[0].src, "the destination d of `elect.sync d|p` is one register or `_`" + sec);
    if (op.id != OpId::Mapa) return;
    if (in.space != Space::Generic && in.space != Space::SharedCluster)
      bad(ql, "space", "`mapa` accepts only `.shared::cluster` (none: generic addresses)" + sec);
    if (in.type != DataType::U32 && in.type != DataType::U64)
      fail(ql.mnemonic, "`mapa` needs its type `.u32` or `.u64`" + sec);
    const Operand& a = in.operands[1];
    if (a.kind != Operand::Kind::Loc && a.kind != Operand::Kind::Reg)
      throw DiagnosticError(a.src,
                            "the source a of `mapa` is a shared variable or a register holding its address" + sec);
    if (in.operands[0].kind != Operand::Kind::Reg)
      throw DiagnosticError(in.operands[0].src, "the destination d of `mapa` is a register" + sec);
    if (const Operand& b = in.operands[2]; b.kind == Operand::Kind::Imm && (b.imm < 0 || b.imm > 15))
      throw DiagnosticError(b.src, "the CTA rank b must name a CTA of the cluster (0..15)" + sec);
  }

  /// st.async (PTX ISA 9.2 §9.7.9.12) and red.async (§9.7.13.7): the PTX 8.1 / sm_90 forms, a weak store
  /// (st.async) or a .relaxed.cluster reduction (red.async) into `.shared::cluster` with mbarrier
  /// completion, `[a], b, [mbar]`. The completion mechanism is made explicit. The PTX 8.7 / sm_100
  /// `.release` `.global` forms and the vector and `.b128` forms are rejected with their reason.
  void validateAsyncStore(const OpInfo& op, Instr& in, const QualLocs& ql) {
    const bool red = op.id == OpId::RedAsync;
    const std::string mn(op.mnemonic);
    const std::string sec = " (PTX ISA 9.2 §" + std::string(op.isaSection) + ")";
    if (in.sem == Sem::Release || in.sem == Sem::Mmio || in.space == Space::Global)
      bad(ql, in.sem == Sem::Release || in.sem == Sem::Mmio ? "sem" : "space",
          "the `" + mn + ".release` form (a strong release " + (red ? "reduction" : "store") +
              " to `.global` without mbarrier, PTX ISA 8.7, sm_100) is not modelled: only the "
              "`.shared::cluster` form with mbarrier completion (PTX ISA 8.1, sm_90) is" +
              sec);
    if (red) {
      if (in.sem != Sem::Relaxed)
        bad(ql, "sem", "`red.async` needs `.relaxed.cluster` (its `.sem` and `.scope` are not optional)" + sec);
      if (in.scope != Scope::Cluster)
        bad(ql, in.scope == Scope::None ? "sem" : "scope", "`red.async.relaxed` needs scope `.cluster`" + sec);
    } else {
      requireSem(op, in, ql, {Sem::Weak}, Sem::Weak);
      // The syntax also lists `st.async.cluster` (no .sem), but the text gives a scope no meaning for the
      // weak store and ptxas refuses `.weak.cluster`, the canonical spelling of that form.
      if (in.scope != Scope::None)
        bad(ql, "scope",
            "a scope on the weak `st.async` is not modelled: the mbarrier form is a weak store, whose complete-tx "
            "is .release.cluster anyway" +
                sec);
    }
    if (in.space != Space::Generic && in.space != Space::SharedCluster)
      bad(ql, "space", "`" + mn + "` accepts only `.shared::cluster` (none: generic addressing)" + sec);
    if (in.hasFlag("bulk_group"))
      bad(ql, "completion", "`" + mn + "` completes through `.mbarrier::complete_tx::bytes`" + sec);
    if (!in.hasFlag("mbarrier::complete_tx::bytes")) {
      if (!red) fail(ql.mnemonic, "`st.async` needs the completion mechanism `.mbarrier::complete_tx::bytes`" + sec);
      // red.async: "If .completion_mechanism is not specified, it defaults to .mbarrier::complete_tx::bytes"
      // (canonical form: written out, in its group's place).
      auto at = std::find_if(in.flags.begin(), in.flags.end(),
                             [](const std::string& f) { return ptx::groupAccepts("atomop", f); });
      in.flags.insert(at, "mbarrier::complete_tx::bytes");
    }
    if (in.hasFlag("v4"))
      bad(ql, "vec",
          "the vector forms `.v2`/`.v4` store 2 or 4 elements; a litmus location holds one value, so they have no "
          "litmus abstraction" +
              sec);
    if (in.type == DataType::None) fail(ql.mnemonic, "`" + mn + "` needs a type" + sec);
    if (!red) {
      const DataType ok[] = {DataType::B32, DataType::B64, DataType::U32, DataType::U64,
                             DataType::S32, DataType::S64, DataType::F32, DataType::F64};
      if (std::find(std::begin(ok), std::end(ok), in.type) == std::end(ok))
        bad(ql, "type",
            in.type == DataType::B128
                ? "the `.b128` form of `st.async` (PTX ISA 9.2) is not modelled: a litmus value is 64 bits" + sec
                : "`st.async` accepts .b32 .b64 .u32 .u64 .s32 .s64 .f32 .f64" + sec);
    } else {
      requireFlag(op, in, ql, "atomop", "an operation (.add, .min, .max, .inc, .dec, .and, .or, .xor)");
      std::string o;
      for (auto v : ptx::qualifierGroupValues("atomop"))
        if (in.hasFlag(v)) o = v;
      auto typed = [&](std::initializer_list<DataType> types, const char* list) {
        for (DataType t : types)
          if (t == in.type) return;
        bad(ql, "type", "`red.async." + o + "` accepts " + list + sec);
      };
      if (o == "inc" || o == "dec") {
        typed({DataType::U32}, ".u32");
      } else if (o == "min" || o == "max") {
        typed({DataType::U32, DataType::S32}, ".u32 .s32");
      } else if (o == "and" || o == "or" || o == "xor") {
        typed({DataType::B32}, ".b32");
      } else if (o == "add") {
        typed({DataType::U32, DataType::S32, DataType::U64}, ".u32 .s32 .u64");
      } else {
        bad(ql, "atomop", "`red.async` has no `." + o + "` (.add .min .max .inc .dec .and .or .xor)" + sec);
      }
    }
    if (in.operands.size() != 3)
      fail(ql.mnemonic,
           "`" + mn + "` takes `[a], b, [mbar]`, got " + std::to_string(in.operands.size()) + " operand(s)" + sec);
    if (in.operands[2].kind != Operand::Kind::Addr)
      throw DiagnosticError(in.operands[2].src, "expected the mbarrier address `[mbar]`" + sec);
    if (in.operands[1].kind != Operand::Kind::Imm && in.operands[1].kind != Operand::Kind::Reg)
      throw DiagnosticError(in.operands[1].src, "the source b is a register or an integer" + sec);
  }

  // ---- Tensor cores: wgmma (PTX ISA 9.2 §9.7.15) and tcgen05 (§9.7.16) -------------------------------

  /// `.sync.aligned`, mandatory on the warpgroup / warp-collective instructions.
  void requireSyncAligned(const OpInfo& op, const Instr& in, const QualLocs& ql, const std::string& sec) {
    if (!in.hasFlag("sync") || !in.hasFlag("aligned"))
      fail(ql.mnemonic, "`" + std::string(op.mnemonic) + "` needs the mandatory `.sync.aligned`" + sec);
  }

  /// An operand that must be a register (a matrix descriptor or a tensor-memory register vector element).
  static void requireReg(const Operand& o, const std::string& what, const std::string& sec) {
    if (o.kind != Operand::Kind::Reg)
      throw DiagnosticError(o.src, what +
                                       " must be a register (litmus: a register holding the address of a shared "
                                       "location, `mov.u64 da, A`)" +
                                       sec);
  }

  /// An immediate 0 or 1 (scale-d, enable-input-d, the immediate scales and transposes).
  static void requireImm01(const Operand& o, const std::string& what, const std::string& sec, bool minusOne = false) {
    if (o.kind != Operand::Kind::Imm || (o.imm != 0 && o.imm != 1 && !(minusOne && o.imm == -1)))
      throw DiagnosticError(
          o.src, what + (minusOne ? " must be the immediate 1 or -1" : " must be the immediate 0 or 1") + sec);
  }

  /// wgmma (PTX ISA 9.2 §9.7.15): the accepted subset is `wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16
  /// {d, _, _, _}, descA, descB, scale-d{, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b}` (A and B
  /// through matrix descriptors, here registers holding the address of a shared location; d0 is the
  /// modelled accumulator element), `wgmma.fence.sync.aligned`, `wgmma.commit_group.sync.aligned`,
  /// `wgmma.wait_group.sync.aligned N`. The other shapes and types, A from registers and `.sp` are rejected
  /// with the reason (A from registers, `{a0, ...}`, does not fit the operand signature of PtxOps.def).
  void validateWgmma(const OpInfo& op, const Instr& in, const QualLocs& ql) {
    const std::string sec = " (PTX ISA 9.2 §" + std::string(op.isaSection) + ")";
    requireSyncAligned(op, in, ql, sec);
    if (op.id == OpId::WgmmaWait) {
      if (in.operands.size() != 1 || in.operands[0].kind != Operand::Kind::Imm || in.operands[0].imm < 0)
        fail(ql.mnemonic, "`wgmma.wait_group` takes one integer constant N >= 0" + sec);
      return;
    }
    if (op.id != OpId::WgmmaMmaAsync) return;
    requireFlag(op, in, ql, "wgmma_shape", "a shape (.m64n8k16)");
    if (!in.hasFlag("m64n8k16"))
      bad(ql, "wgmma_shape",
          "only the shape `.m64n8k16` is modelled: the litmus abstraction follows one accumulator element (the kernel "
          "uses the smallest f16 tile)" +
              sec);
    requireFlag(op, in, ql, "wgmma_dtype", "the accumulator type (.f32)");
    if (!in.hasFlag("f32")) bad(ql, "wgmma_dtype", "only the `.f32` accumulator is modelled" + sec);
    requireFlag(op, in, ql, "wgmma_atype", "the types of A and B (.f16.f16)");
    requireFlag(op, in, ql, "wgmma_btype", "the types of A and B (.f16.f16)");
    for (const char* g : {"wgmma_atype", "wgmma_btype"})
      for (auto v : ptx::qualifierGroupValues(g))
        if (v != "f16" && in.hasFlag(v)) bad(ql, g, "only `.f16` A and B are modelled (`.f32.f16.f16`)" + sec);
    if (in.operands.size() != 4 && in.operands.size() != 8)
      fail(ql.mnemonic,
           "`wgmma.mma_async` takes `{d0, d1, d2, d3}, descA, descB, scale-d{, imm-scale-a, imm-scale-b, "
           "imm-trans-a, imm-trans-b}`, got " +
               std::to_string(in.operands.size()) + " operand(s)" + sec);
    const Operand& d = in.operands[0];
    if (d.kind != Operand::Kind::Vector || d.elems.size() != 4)
      throw DiagnosticError(d.src,
                            "the m64n8k16 .f32 accumulator is 4 registers per thread: `{d0, d1, d2, d3}` (d0 "
                            "is the modelled element; the others may be `_`)" +
                                sec);
    if (d.elems[0].kind != Operand::Kind::Reg)
      throw DiagnosticError(d.elems[0].src, "d0, the modelled accumulator element, must be a register" + sec);
    requireReg(in.operands[1], "descA", sec);
    requireReg(in.operands[2], "descB", sec);
    requireImm01(in.operands[3], "scale-d", sec);
    if (in.operands.size() == 8) {
      requireImm01(in.operands[4], "imm-scale-a", sec, true);
      requireImm01(in.operands[5], "imm-scale-b", sec, true);
      requireImm01(in.operands[6], "imm-trans-a", sec);
      requireImm01(in.operands[7], "imm-trans-b", sec);
      if (in.operands[4].imm != 1 || in.operands[5].imm != 1)
        throw DiagnosticError(in.operands[4].imm != 1 ? in.operands[4].src : in.operands[5].src,
                              "negated inputs (imm-scale -1) are not modelled" + sec);
    }
  }

  /// tcgen05 (PTX ISA 9.2 §9.7.16): `.cta_group::1` forms; `tcgen05.mma.kind::f16 [d], adesc, bdesc, idesc,
  /// enable-input-d`, `tcgen05.cp.128x256b [d], sdesc`, `tcgen05.ld/st.sync.aligned.32x32b.x1.b32`,
  /// `tcgen05.commit.mbarrier::arrive::one{.shared::cluster}.b64 [mbar]`, `tcgen05.wait::ld/st.sync.aligned`,
  /// `tcgen05.fence::before_thread_sync / ::after_thread_sync`. Everything else is rejected with the reason.
  void validateTcgen05(const OpInfo& op, Instr& in, const QualLocs& ql) {
    const std::string sec = " (PTX ISA 9.2 §" + std::string(op.isaSection) + ")";
    const std::string mn(op.mnemonic);
    auto ctaGroup = [&] {
      requireFlag(op, in, ql, "tc_cta_group", "`.cta_group::1`");
      if (in.hasFlag("cta_group::2"))
        bad(ql, "tc_cta_group",
            "`.cta_group::2` (a CTA pair sharing one MMA) is not modelled: only `.cta_group::1`" + sec);
    };
    auto nOperands = [&](size_t n, const char* form) {
      if (in.operands.size() != n)
        fail(ql.mnemonic,
             "`" + mn + "` takes `" + form + "`, got " + std::to_string(in.operands.size()) + " operand(s)" + sec);
    };
    auto tmemAddr = [&](const Operand& o) {
      if (o.kind != Operand::Kind::Addr)
        throw DiagnosticError(o.src, "expected the tensor-memory address `[D]` of a `.tmem` location" + sec);
    };
    if (op.id == OpId::Tcgen05Mma) {
      ctaGroup();
      requireFlag(op, in, ql, "tc_kind", "a kind (.kind::f16)");
      if (!in.hasFlag("kind::f16"))
        bad(ql, "tc_kind", "only `.kind::f16` is modelled (one accumulator element, f16 inputs)" + sec);
      nOperands(5, "[d-tmem], a-desc, b-desc, idesc, enable-input-d");
      tmemAddr(in.operands[0]);
      requireReg(in.operands[1], "a-desc", sec);
      requireReg(in.operands[2], "b-desc", sec);
      if (in.operands[3].kind != Operand::Kind::Imm && in.operands[3].kind != Operand::Kind::Reg)
        throw DiagnosticError(in.operands[3].src,
                              "idesc (the instruction descriptor) is a register or a constant" + sec);
      requireImm01(in.operands[4], "enable-input-d", sec);
    } else if (op.id == OpId::Tcgen05Cp) {
      ctaGroup();
      requireFlag(op, in, ql, "tc_cp_shape", "a shape (.128x256b)");
      if (!in.hasFlag("128x256b")) bad(ql, "tc_cp_shape", "only the shape `.128x256b` is modelled" + sec);
      nOperands(2, "[taddr], s-desc");
      tmemAddr(in.operands[0]);
      requireReg(in.operands[1], "s-desc", sec);
    } else if (op.id == OpId::Tcgen05Ld || op.id == OpId::Tcgen05St) {
      requireSyncAligned(op, in, ql, sec);
      const bool ld = op.id == OpId::Tcgen05Ld;
      requireFlag(op, in, ql, "tc_shape", "a shape (.32x32b)");
      if (!in.hasFlag("32x32b")) bad(ql, "tc_shape", "only the shape `.32x32b` is modelled" + sec);
      requireFlag(op, in, ql, "tc_num", "a repeat count (.x1)");
      if (!in.hasFlag("x1"))
        bad(ql, "tc_num",
            "only `.x1` (one 32-bit register per thread) is modelled: a litmus location is one value" + sec);
      if (in.type != DataType::B32) fail(ql.mnemonic, "`" + mn + "` needs `.b32`" + sec);
      nOperands(2, ld ? "{r}, [taddr]" : "[taddr], {r}");
      const Operand& v = in.operands[ld ? 0 : 1];
      if (v.kind != Operand::Kind::Vector || v.elems.size() != 1)
        throw DiagnosticError(v.src, "`.32x32b.x1` moves one register: `{r}`" + sec);
      if (ld && v.elems[0].kind != Operand::Kind::Reg)
        throw DiagnosticError(v.elems[0].src, "the destination must be a register" + sec);
      if (!ld && v.elems[0].kind != Operand::Kind::Reg && v.elems[0].kind != Operand::Kind::Imm)
        throw DiagnosticError(v.elems[0].src, "the source is a register or an integer" + sec);
      tmemAddr(in.operands[ld ? 1 : 0]);
    } else if (op.id == OpId::Tcgen05Commit) {
      ctaGroup();
      requireFlag(op, in, ql, "tc_commit", "the completion mechanism `.mbarrier::arrive::one`");
      if (in.hasFlag("multicast::cluster"))
        bad(ql, "multicast", "the multicast form of `tcgen05.commit` is not modelled" + sec);
      if (in.space != Space::Generic && in.space != Space::SharedCluster)
        bad(ql, "space", "`tcgen05.commit` accepts only `.shared::cluster` (none: generic addressing)" + sec);
      if (in.type != DataType::B64) fail(ql.mnemonic, "`tcgen05.commit` needs `.b64`" + sec);
      nOperands(1, "[mbar]");
      if (in.operands[0].kind != Operand::Kind::Addr)
        throw DiagnosticError(in.operands[0].src, "expected the mbarrier address `[mbar]`" + sec);
    } else if (op.id == OpId::Tcgen05WaitLd || op.id == OpId::Tcgen05WaitSt) {
      requireSyncAligned(op, in, ql, sec);
    }  // tcgen05.fence::*: no qualifiers, no operands
  }

  /// tensormap.replace (PTX ISA 9.2 §9.7.9.26): `.tile` mode, one field, `.b1024`, `.b64` for
  /// `.global_address`/`.global_stride` and `.b32` otherwise; field2 takes an immediate ordinal, field3 an
  /// immediate new value (Table 33 ranges).
  void validateTensormapReplace(const OpInfo& op, Instr& in, const QualLocs& ql) {
    const std::string sec = " (PTX ISA 9.2 §9.7.9.26)";
    requireFlag(op, in, ql, "tmap_mode", "the mode `.tile`");
    requireFlag(op, in, ql, "tmap_field",
                "a field (.global_address, .rank, .box_dim, .global_dim, .global_stride, .element_stride, "
                ".elemtype, .interleave_layout, .swizzle_mode, .swizzle_atomicity, .fill_mode)");
    requireFlag(op, in, ql, "tmap_size", "the object size `.b1024`");
    if (in.space != Space::Generic && in.space != Space::Global && in.space != Space::SharedCta)
      bad(ql, "space", "`tensormap.replace` accepts `.global` or `.shared::cta` (none: generic addressing)" + sec);
    std::string field;
    for (auto v : ptx::qualifierGroupValues("tmap_field"))
      if (in.hasFlag(v)) field = v;
    const bool wide = field == "global_address" || field == "global_stride";
    const bool ordinal =
        field == "box_dim" || field == "global_dim" || field == "global_stride" || field == "element_stride";
    const bool immediate = field == "elemtype" || field == "interleave_layout" || field == "swizzle_mode" ||
                           field == "swizzle_atomicity" || field == "fill_mode";
    const DataType want = wide ? DataType::B64 : DataType::B32;
    if (in.type != want)
      bad(ql, in.type == DataType::None ? "tmap_size" : "type",
          "`tensormap.replace." + field + "` needs the type `" + std::string(ptx::toString(want)) + "`" + sec);
    const size_t n = ordinal ? 3 : 2;
    if (in.operands.size() != n)
      fail(ql.mnemonic, "`tensormap.replace." + field + "` takes " +
                            (ordinal ? std::string("`[addr], ord, new_val`") : std::string("`[addr], new_val`")) +
                            ", got " + std::to_string(in.operands.size()) + " operand(s)" + sec);
    if (ordinal) {
      const Operand& ord = in.operands[1];
      if (ord.kind != Operand::Kind::Imm || ord.imm < 0 || ord.imm > 4)
        throw DiagnosticError(ord.src, "the ordinal of `." + field + "` is an immediate in 0..4 (one per rank)" + sec);
    }
    const Operand& v = in.operands.back();
    if (v.kind != Operand::Kind::Imm && v.kind != Operand::Kind::Reg)
      throw DiagnosticError(v.src,
                            "new_val must be a register or an integer (a litmus tensor map holds a descriptor "
                            "version, docs/lowering.md)" +
                                sec);
    if (immediate) {
      const int64_t maxVal = field == "elemtype"            ? 15
                             : field == "swizzle_mode"      ? 4
                             : field == "swizzle_atomicity" ? 3
                             : field == "interleave_layout" ? 2
                                                            : 1;
      if (v.kind != Operand::Kind::Imm || v.imm < 0 || v.imm > maxVal)
        throw DiagnosticError(
            v.src, "`." + field + "` takes an immediate new_val in 0.." + std::to_string(maxVal) + " (Table 33)" + sec);
    }
  }

  // ---- The rest of the async proxy: bulk reductions, tensor stores, prefetches, tensormap.cp_fenceproxy ----

  /// The index of the `[tensorMap, {coords}]` operand of `in`, -1 if it has none.
  static int tensorMapOperand(const Instr& in) {
    if (in.op == OpId::CpAsyncBulkTensor) return in.space == Space::Global ? 0 : 1;
    if (in.op == OpId::CpReduceAsyncBulkTensor || in.op == OpId::CpAsyncBulkPrefetchTensor) return 0;
    return -1;
  }

  /// Load mode `.tile` (the default, written out after the dimension); any other is rejected.
  void tileMode(Instr& in, const QualLocs& ql, const std::string& sec) {
    std::string mode;
    for (auto v : ptx::qualifierGroupValues("load_mode"))
      if (in.hasFlag(v)) mode = v;
    if (mode.empty()) {
      // PTX: "If .load_mode is not specified, it defaults to .tile" (canonical form: written out).
      auto at = std::find_if(in.flags.begin(), in.flags.end(),
                             [](const std::string& f) { return ptx::groupAccepts("dim", f); });
      in.flags.insert(at == in.flags.end() ? at : at + 1, "tile");
    } else if (mode != "tile") {
      bad(ql, "load_mode",
          "load mode `." + mode + "` is not supported: only `.tile` (one box per operation) is modelled" + sec);
    }
  }

  /// `[tensorMap, {c0, ...}]` with one coordinate per dimension, at operand `i`.
  void tensorMapCoords(const Instr& in, size_t i, const std::string& mn, const std::string& sec) const {
    const Operand& map = in.operands[i];
    size_t dims = 0;
    for (size_t d = 1; d <= 5; ++d)
      if (in.hasFlag(std::to_string(d) + "d")) dims = d;
    if (map.kind != Operand::Kind::Addr || map.elems.empty())
      throw DiagnosticError(map.src, "`" + mn + "` names its tensor map as `[tensorMap, {c0, ...}]`" + sec);
    if (map.elems.size() != dims)
      throw DiagnosticError(map.src, "a `." + std::to_string(dims) + "d` `.tile` operation takes " +
                                         std::to_string(dims) + " tensor coordinate(s), got " +
                                         std::to_string(map.elems.size()) + sec);
  }

  /// Only `.L2::cache_hint`, whose cache-policy operand is the last one.
  void cacheHintOnly(const Instr& in, const QualLocs& ql, const std::string& mn, const std::string& sec) {
    for (auto v : ptx::qualifierGroupValues("hints"))
      if (in.hasFlag(v) && v != "L2::cache_hint") bad(ql, "hints", "`" + mn + "` accepts only `.L2::cache_hint`" + sec);
  }

  void operandCount(const Instr& in, const QualLocs& ql, size_t want, const std::string& form,
                    const std::string& sec) const {
    if (in.operands.size() != want)
      fail(ql.mnemonic, "this form takes " + std::to_string(want) + " operands (" + form + "), got " +
                            std::to_string(in.operands.size()) + sec);
  }

  /// The reduction operation of cp.reduce.async.bulk{.tensor}: .add .min .max .inc .dec .and .or .xor.
  std::string bulkRedOp(const OpInfo& op, const Instr& in, const QualLocs& ql, const std::string& sec) {
    requireFlag(op, in, ql, "atomop", "a reduction operation (.add, .min, .max, .inc, .dec, .and, .or, .xor)");
    std::string o;
    for (auto v : ptx::qualifierGroupValues("atomop"))
      if (in.hasFlag(v)) o = v;
    if (o == "cas" || o == "exch" || o == "sub" || o == "mul" || o == "div")
      bad(ql, "atomop",
          "`" + std::string(op.mnemonic) + "` has no `." + o + "` (.add .min .max .inc .dec .and .or .xor)" + sec);
    return o;
  }

  /// `[tensorMap, {coords}], [srcMem]{, cache-policy}` of the shared::cta → global tensor forms.
  void tensorStoreOperands(const Instr& in, const QualLocs& ql, const std::string& mn, const std::string& sec) {
    cacheHintOnly(in, ql, mn, sec);
    operandCount(
        in, ql, 2 + (in.hasFlag("L2::cache_hint") ? 1 : 0),
        std::string("[tensorMap, {coords}], [srcMem]") + (in.hasFlag("L2::cache_hint") ? ", cache-policy" : ""), sec);
    tensorMapCoords(in, 0, mn, sec);
    if (in.operands[1].kind != Operand::Kind::Addr)
      throw DiagnosticError(in.operands[1].src, "expected the shared-memory source `[srcMem]`" + sec);
  }

  /// The tensor store `cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group{.L2::cache_hint}
  /// [tensorMap, {coords}], [srcMem]{, cache-policy}` (PTX ISA 9.2 §9.7.9.25.5.2).
  void validateTensorStore(const OpInfo&, Instr& in, const QualLocs& ql) {
    const std::string sec = " (PTX ISA 9.2 §9.7.9.25.5.2)", mn = "cp.async.bulk.tensor";
    if (in.space != Space::Global || in.srcSpace != Space::SharedCta)
      fail(ql.mnemonic, "the tensor store form of `cp.async.bulk.tensor` copies `.global.shared::cta`" + sec);
    tileMode(in, ql, sec);
    if (!in.hasFlag("bulk_group"))
      fail(ql.mnemonic, "the tensor store (`.global.shared::cta`) completes through `.bulk_group`" + sec);
    if (in.hasFlag("multicast::cluster")) bad(ql, "multicast", "a tensor store has no `.multicast::cluster`" + sec);
    tensorStoreOperands(in, ql, mn, sec);
  }

  /// cp.reduce.async.bulk (PTX ISA 9.2 §9.7.9.25.4.2): `.shared::cluster.shared::cta.mbarrier::complete_tx::bytes`
  /// `[dst], [src], size, [mbar]` or `.global.shared::cta.bulk_group{.L2::cache_hint}` `[dst], [src], size{,
  /// policy}`, with the redOp / type combinations of the section's table. Floating-point and `.noftz` forms are
  /// not modelled (a litmus value is an integer).
  void validateBulkReduce(const OpInfo& op, Instr& in, const QualLocs& ql) {
    const std::string sec = " (PTX ISA 9.2 §9.7.9.25.4.2)", mn = "cp.reduce.async.bulk";
    requireFlag(op, in, ql, "completion", "a completion mechanism (.mbarrier::complete_tx::bytes or .bulk_group)");
    const bool mb = in.hasFlag("mbarrier::complete_tx::bytes");
    if (in.srcSpace != Space::SharedCta)
      fail(ql.mnemonic, "`" + mn +
                            "` reduces from `.shared::cta` (`.shared::cluster.shared::cta` or "
                            "`.global.shared::cta`)" +
                            sec);
    if (mb && in.space != Space::SharedCluster)
      bad(ql, "completion", "`.mbarrier::complete_tx::bytes` goes with the `.shared::cluster` destination" + sec);
    if (!mb && in.space != Space::Global)
      bad(ql, "completion", "`.bulk_group` goes with the `.global` destination" + sec);
    cacheHintOnly(in, ql, mn, sec);
    if (mb && in.hasFlag("L2::cache_hint"))
      bad(ql, "hints", "the `.shared::cluster` form takes no `.L2::cache_hint`" + sec);
    const std::string o = bulkRedOp(op, in, ql, sec);
    if (in.type == DataType::None) fail(ql.mnemonic, "`" + mn + "` needs a type" + sec);
    auto typed = [&](std::initializer_list<DataType> types, const char* list) {
      for (DataType t : types)
        if (t == in.type) return;
      bad(ql, "type",
          "`" + mn + (mb ? ".shared::cluster" : ".global") + "." + o + "` accepts " + list +
              (in.type == DataType::F32 || in.type == DataType::F64
                   ? " (floating-point reductions are not modelled: a litmus value is an integer)"
                   : "") +
              sec);
    };
    if (o == "inc" || o == "dec") {
      typed({DataType::U32}, ".u32");
    } else if (o == "min" || o == "max") {
      if (mb)
        typed({DataType::U32, DataType::S32}, ".u32 .s32");
      else
        typed({DataType::U32, DataType::S32, DataType::U64, DataType::S64}, ".u32 .s32 .u64 .s64");
    } else if (o == "and" || o == "or" || o == "xor") {
      if (mb)
        typed({DataType::B32}, ".b32");
      else
        typed({DataType::B32, DataType::B64}, ".b32 .b64");
    } else {  // add
      typed({DataType::U32, DataType::S32, DataType::U64}, ".u32 .s32 .u64");
    }
    const size_t want = mb ? 4 : 3 + (in.hasFlag("L2::cache_hint") ? 1 : 0);
    operandCount(in, ql, want,
                 mb ? "[dstMem], [srcMem], size, [mbar]"
                    : std::string("[dstMem], [srcMem], size") + (in.hasFlag("L2::cache_hint") ? ", cache-policy" : ""),
                 sec);
    if (mb && in.operands[3].kind != Operand::Kind::Addr)
      throw DiagnosticError(in.operands[3].src, "expected the mbarrier address `[mbar]`" + sec);
  }

  /// cp.reduce.async.bulk.tensor (PTX ISA 9.2 §9.7.9.25.5.3): `.Nd.global.shared::cta.redOp{.tile}.bulk_group
  /// {.L2::cache_hint} [tensorMap, {coords}], [srcMem]{, policy}`; no type (the map gives the element type).
  void validateTensorReduce(const OpInfo& op, Instr& in, const QualLocs& ql) {
    const std::string sec = " (PTX ISA 9.2 §9.7.9.25.5.3)", mn = "cp.reduce.async.bulk.tensor";
    requireFlag(op, in, ql, "dim", "a dimension (.1d, .2d, .3d, .4d or .5d)");
    if (in.space != Space::Global || in.srcSpace != Space::SharedCta)
      fail(ql.mnemonic, "`" + mn + "` reduces `.global.shared::cta`" + sec);
    bulkRedOp(op, in, ql, sec);
    tileMode(in, ql, sec);
    requireFlag(op, in, ql, "completion", "the completion mechanism `.bulk_group`");
    if (!in.hasFlag("bulk_group")) bad(ql, "completion", "`" + mn + "` completes through `.bulk_group`" + sec);
    if (in.type != DataType::None)
      bad(ql, "type", "`" + mn + "` takes no type: the tensor map gives the element type" + sec);
    tensorStoreOperands(in, ql, mn, sec);
  }

  /// cp.async.bulk.prefetch.L2.global{.L2::cache_hint} `[srcMem], size{, policy}` (PTX ISA 9.2 §9.7.9.25.4.3) and
  /// cp.async.bulk.prefetch.tensor.Nd.L2.global{.tile}{.L2::cache_hint} `[tensorMap, {coords}]{, policy}`
  /// (§9.7.9.25.5.4).
  void validateBulkPrefetch(const OpInfo& op, Instr& in, const QualLocs& ql) {
    const bool tensor = op.id == OpId::CpAsyncBulkPrefetchTensor;
    const std::string sec = " (PTX ISA 9.2 §" + std::string(op.isaSection) + ")", mn(op.mnemonic);
    if (tensor) requireFlag(op, in, ql, "dim", "a dimension (.1d, .2d, .3d, .4d or .5d)");
    requireFlag(op, in, ql, "prefetch_level", "the level `.L2`");
    if (in.srcSpace != Space::Global) fail(ql.mnemonic, "`" + mn + "` prefetches from `.global` (`.L2.global`)" + sec);
    if (tensor) tileMode(in, ql, sec);
    cacheHintOnly(in, ql, mn, sec);
    const bool hint = in.hasFlag("L2::cache_hint");
    if (tensor) {
      operandCount(in, ql, 1 + (hint ? 1 : 0), std::string("[tensorMap, {coords}]") + (hint ? ", cache-policy" : ""),
                   sec);
      tensorMapCoords(in, 0, mn, sec);
    } else {
      operandCount(in, ql, 2 + (hint ? 1 : 0), std::string("[srcMem], size") + (hint ? ", cache-policy" : ""), sec);
      if (in.operands[0].kind != Operand::Kind::Addr)
        throw DiagnosticError(in.operands[0].src, "expected the source address `[srcMem]`" + sec);
    }
  }

  /// tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned `[dst], [src], 128`
  /// (PTX ISA 9.2 §9.7.13.16): every qualifier is mandatory.
  void validateTensormapCpFenceproxy(const OpInfo& op, Instr& in, const QualLocs& ql) {
    const std::string sec = " (PTX ISA 9.2 §9.7.13.16)", mn = "tensormap.cp_fenceproxy";
    if (in.space != Space::Global || in.srcSpace != Space::SharedCta)
      fail(ql.mnemonic, "`" + mn + "` copies `.global.shared::cta`" + sec);
    requireFlag(op, in, ql, "tmap_proxy", "the proxy kind `.tensormap::generic`");
    if (in.sem != Sem::Release)
      fail(in.sem == Sem::None ? ql.mnemonic : ql.at("sem"), "`" + mn + "` needs `.release`" + sec);
    requireScope(op, in, ql, {Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys}, Scope::None);
    requireFlag(op, in, ql, "sync", "the mandatory `.sync`");
    requireFlag(op, in, ql, "aligned", "the mandatory `.aligned`");
    operandCount(in, ql, 3, "[dst], [src], 128", sec);
    for (size_t i = 0; i < 2; ++i)
      if (in.operands[i].kind != Operand::Kind::Addr)
        throw DiagnosticError(in.operands[i].src, "expected an address (`[dst]`, `[src]`)" + sec);
    if (in.operands[2].kind != Operand::Kind::Imm || in.operands[2].imm != 128)
      throw DiagnosticError(in.operands[2].src, "the size of `" + mn + "` is the immediate 128" + sec);
  }

 private:
  const InstrContext& cx;
};

}  // namespace

void readDialectForms(Instr& in, InstrContext& cx) { Rules(cx).dialectForms(in, cx.quals); }

void validate(Instr& in, const InstrContext& cx) { Rules(cx).validate(ptx::opInfo(in.op), in, cx.quals); }

// Declared in Target.hpp: the minimum a qualifier or state space adds to the row's own (PtxOps.def min_sm,
// min_ptx), per the PTX ISA's "PTX ISA notes" and "Target ISA notes" of each instruction.
ptx::Target requiredTarget(const Instr& in) {
  using ptx::Target;
  const ptx::OpInfo& op = ptx::opInfo(in.op);
  Target t = op.minTarget;
  auto need = [&t](int sm, int ptxVersion, bool a = false) { t = ptx::combine(t, Target{sm, ptxVersion, a}); };
  // State spaces spelled `::cta` / `::cluster` (the canonical spelling always writes `::cta`).
  if (in.space == Space::SharedCta || in.srcSpace == Space::SharedCta) need(0, 78);
  if (in.space == Space::SharedCluster || in.srcSpace == Space::SharedCluster) need(90, 78);
  if (in.scope == Scope::Cluster) need(90, 78);
  switch (in.op) {
    case OpId::Ld:
    case OpId::St:
      if (in.sem == Sem::Mmio) need(70, 82);
      if (in.type == ptx::DataType::B128) need(70, 83);
      break;
    case OpId::Fence:
      if (in.hasFlag("sync_restrict::shared::cta") || in.hasFlag("sync_restrict::shared::cluster") ||
          in.sem == Sem::Acquire || in.sem == Sem::Release)
        need(90, 86);
      break;
    case OpId::MbarrierArrive:
    case OpId::MbarrierArriveDrop:
    case OpId::MbarrierTestWait:
    case OpId::MbarrierTryWait:
      // The canonical spelling writes .sem and .scope (PTX 8.0, sm_90); .relaxed needs PTX 8.6.
      need(90, 80);
      if (in.sem == Sem::Relaxed) need(90, 86);
      break;
    case OpId::MbarrierExpectTx:
    case OpId::MbarrierCompleteTx: need(90, 80); break;
    case OpId::BarrierClusterArrive:
    case OpId::BarrierClusterWait: need(90, 80); break;  // explicit .sem
    case OpId::CpAsyncBulk:
      if (in.space == Space::SharedCta && in.srcSpace == Space::Global) need(90, 86);
      break;
    case OpId::CpAsyncBulkTensor:
      // PTX ISA 9.2 §9.7.9.25.5.2: `.shared::cta` destination from PTX 8.6.
      if (in.space == Space::SharedCta) need(90, 86);
      break;
    case OpId::TensormapReplace:
      // §9.7.9.26: sm_90a (architecture-specific) from PTX 8.3; `.swizzle_atomicity` PTX 8.6, sm_100a;
      // `.elemtype` 13..15 PTX 8.7, sm_100a; `.swizzle_mode` 4 PTX 8.8, sm_103a.
      need(90, 83, true);
      if (in.hasFlag("swizzle_atomicity")) need(100, 86, true);
      if (in.hasFlag("elemtype") && !in.operands.empty() && in.operands.back().imm >= 13) need(100, 87, true);
      if (in.hasFlag("swizzle_mode") && !in.operands.empty() && in.operands.back().imm == 4) need(103, 88, true);
      break;
    case OpId::ClcTryCancel:
      if (in.hasFlag("multicast::cluster::all")) need(100, 86, true);
      break;
    // wgmma: sm_90a (architecture-specific, PTX ISA 9.2 §9.7.15 "Target ISA notes"); tcgen05: sm_100a
    // (§9.7.16; PTX 8.6).
    case OpId::WgmmaMmaAsync:
    case OpId::WgmmaFence:
    case OpId::WgmmaCommit:
    case OpId::WgmmaWait: need(90, 80, true); break;
    case OpId::Tcgen05Mma:
    case OpId::Tcgen05Cp:
    case OpId::Tcgen05Ld:
    case OpId::Tcgen05St:
    case OpId::Tcgen05Commit:
    case OpId::Tcgen05WaitLd:
    case OpId::Tcgen05WaitSt:
    case OpId::Tcgen05FenceBefore:
    case OpId::Tcgen05FenceAfter: need(100, 86, true); break;
    // No qualifier-specific minimum beyond the row's own (PtxOps.def).
    case OpId::StAsync:
    case OpId::RedAsync:
    case OpId::CpReduceAsyncBulk:
    case OpId::CpReduceAsyncBulkTensor:
    case OpId::CpAsyncBulkPrefetch:
    case OpId::CpAsyncBulkPrefetchTensor:
    case OpId::TensormapCpFenceproxy:
    case OpId::Atom:
    case OpId::Red:
    case OpId::Tld:
    case OpId::Suld:
    case OpId::Sust:
    case OpId::Cold:
    case OpId::Suatom:
    case OpId::Sured:
    case OpId::Membar:
    case OpId::FenceProxyAlias:
    case OpId::FenceProxyKind:
    case OpId::FenceProxyAsync:
    case OpId::FenceProxyAsyncGen:
    case OpId::FenceProxyTmap:
    case OpId::FenceMbarrierInit:
    case OpId::BarSync:
    case OpId::BarArrive:
    case OpId::MbarrierInit:
    case OpId::MbarrierInval:
    case OpId::CpAsync:
    case OpId::CpAsyncCommit:
    case OpId::CpAsyncWaitGroup:
    case OpId::CpAsyncWaitAll:
    case OpId::CpAsyncMbarArrive:
    case OpId::CpAsyncBulkCommit:
    case OpId::CpAsyncBulkWait:
    case OpId::ClcQueryCancel:
    case OpId::Mov:
    case OpId::Add:
    case OpId::Sub:
    case OpId::Mul:
    case OpId::Div:
    case OpId::And:
    case OpId::Or:
    case OpId::Xor:
    case OpId::Setp:
    case OpId::Selp:
    case OpId::Bra:
    case OpId::Beq:
    case OpId::Bne:
    case OpId::Bge:
    case OpId::Ble:
    case OpId::Bgt:
    case OpId::Blt:
    case OpId::Goto:
    case OpId::Ret:
    case OpId::Exit:
    case OpId::BarWarpSync:
    case OpId::ElectSync:
    case OpId::GriddepLaunch:
    case OpId::GriddepWait:
    case OpId::Mapa:
    case OpId::Count_: break;
  }
  return t;
}

}  // namespace ptxmm::litmus
