// The litmus test AST: what the parser produces from either spelling (the herd/Dat3M PTX litmus
// dialect or real PTX syntax) and what the printer, the event lowering and the kernel generator read.
// Grammar and meaning: litmus/README.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptx/Attributes.hpp"
#include "ptx/Ops.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::litmus {

/// A memory location as named in a test: `x`, or `s@cta1` for CTA 1's copy of a per-CTA shared
/// variable (the litmus spelling of a `mapa`-mapped `.shared::cluster` address).
struct LocRef {
  std::string name;
  int cta = -1;  ///< -1: the accessing thread's own copy (or the only copy)
  auto operator<=>(const LocRef&) const = default;
};

/// An instruction operand.
struct Operand {
  enum class Kind : uint8_t {
    Reg,      ///< register: `r0`, `%r1`, `handle`, `p` (any identifier that is not a location)
    Imm,      ///< integer immediate
    Loc,      ///< location in a value position = its address (`mov.u64 r1, x`); a bare location in an
              ///< address position (Dat3M `st.weak x, 1`) is parsed as Addr, like `[x]`
    Addr,     ///< address in brackets: `[x]`, `[x+4]`, `[s@cta1]`, `[r2]` (register holding an address),
              ///< `[tmap, {0, r1}]` (tensor map with coordinates, cp.async.bulk.tensor)
    Label,    ///< branch target
    Vector,   ///< `{a, _, _, _}`
    Special,  ///< special register: `%tid.x`, `%ctaid.x`, `%cluster_ctaid.x`, `%clusterid.x`, ...
    Sink      ///< `_`
  };
  Kind kind = Kind::Imm;
  std::string name;            ///< Reg, Label, Special: the name
  int64_t imm = 0;             ///< Imm: value; Addr: byte offset
  LocRef loc;                  ///< Loc, Addr with a symbolic base
  std::string baseReg;         ///< Addr with a register base (empty otherwise)
  std::vector<Operand> elems;  ///< Vector elements; Addr: tensor coordinates of `[tensorMap, {c0, c1}]`
  SourceLoc src;
};

/// `@p` / `@!p` guard predicate.
struct Guard {
  std::string pred;
  bool negated = false;
};

/// One instruction, with its qualifiers decoded into attributes.
struct Instr {
  SourceLoc src;
  ptx::OpId op = ptx::OpId::Mov;
  ptx::Sem sem = ptx::Sem::None;
  ptx::Scope scope = ptx::Scope::None;
  ptx::Space space = ptx::Space::Generic;     ///< state space of the (first) memory operand
  ptx::Space srcSpace = ptx::Space::Generic;  ///< copies: source state space (`space` is the destination)
  ptx::DataType type = ptx::DataType::None;
  /// Every other qualifier, canonical spelling without the leading dot, in canonical order, e.g.
  /// "expect_tx", "parity", "multicast::cluster", "multicast::cluster::all", "bulk_group",
  /// "mbarrier::complete_tx::bytes", "read", "noinc", "sync_restrict::shared::cta",
  /// "async::generic" is folded into the op; atom/red operation ("add", "cas", "exch", ...);
  /// setp comparison ("eq", "ne", ...); query_cancel query ("is_canceled", "get_first_ctaid", ...);
  /// proxy kind of `fence.proxy.<kind>` ("surface", "texture", "constant", "generic");
  /// membar level ("cta", "gl", "sys"); cache operator ("ca", "cg").
  std::vector<std::string> flags;
  std::optional<Guard> guard;
  std::vector<Operand> operands;
  /// A Dat3M-dialect form with no PTX spelling (`atom.sub`/`mul`/`div`, `atom.weak`, `suatom`, ...):
  /// the printer writes its address operands bare (`x`, not `[x]`) so that it reads back as the
  /// dialect form (litmus/README.md "Dat3M dialect forms").
  bool dialect = false;

  [[nodiscard]] bool hasFlag(std::string_view f) const {
    for (const auto& x : flags)
      if (x == f) return true;
    return false;
  }
};

/// A statement: a label or an instruction.
struct Stmt {
  std::string label;           ///< non-empty for a label statement
  std::optional<Instr> instr;  ///< set for an instruction statement
  SourceLoc src;
};

/// Where a litmus thread runs in the scope tree (§2.2 thread hierarchy).
struct Placement {
  int cta = 0;      ///< CTA id, unique in the test
  int cluster = 0;  ///< cluster id, unique in the test; CTAs of one cluster share it
  int gpu = 0;      ///< device id
  int warp = -1;    ///< warp within the CTA (-1: generator chooses; threads of one CTA default to distinct warps)
  /// Grid of a programmatic dependent launch (litmus/README.md "Grids"): 0 the primary grid, 1 the
  /// dependent (secondary) grid launched after it in the same stream.
  int grid = 0;
  auto operator<=>(const Placement&) const = default;
};

/// One thread of the test: `P0@cta 0,cluster 0,gpu 0`.
struct Thread {
  std::string name;  ///< "P0"
  Placement where;
  std::vector<Stmt> code;
  SourceLoc src;
};

/// A declared memory location (init block).
struct LocationDecl {
  std::string name;
  ptx::Space space = ptx::Space::Global;  ///< Global or SharedCta
  int64_t init = 0;
  int ownerCta = -1;  ///< shared: -1 = one copy per CTA of the test; else the owning CTA
  /// Virtual alias: `y @ generic aliases x` (aliasProxy Generic, aliasOf "x"): y is a distinct virtual
  /// address of x's physical location; `s @ surface aliases x`: s names x through the surface proxy.
  /// aliasOf is resolved to the declared (physical) location; aliasDirect keeps the name as written
  /// (`sy @ surface aliases y`: aliasOf "x", aliasDirect "y"), which decides proxy synonyms (§8.2.1).
  std::string aliasOf;
  std::string aliasDirect;
  ptx::Proxy aliasProxy = ptx::Proxy::Generic;
  bool isMbarrier = false;  ///< `.mbarrier bar = N`: shared mbarrier, initialised (phase 0, N arrivals)
  int mbarCount = 0;
  /// `.tmem T = v`: a tensor-memory location (PTX ISA 9.2 §9.7.16: its own state space), one copy per
  /// CTA (space SharedCta for placement); accessed only by tcgen05.mma/cp/ld/st.
  bool isTmem = false;
  SourceLoc src;
};

/// Initial register value: `P1:r0 = 0`, or a register holding a location's address `P0:r1 = x`.
struct RegInit {
  int thread = 0;
  std::string reg;
  int64_t value = 0;
  std::optional<LocRef> addressOf;
  SourceLoc src;
};

/// A term of the final condition.
struct Term {
  enum class Kind : uint8_t { Reg, Loc, Const };
  Kind kind = Kind::Const;
  int thread = -1;  ///< Reg: thread index
  std::string reg;  ///< Reg: register name
  LocRef loc;       ///< Loc
  int64_t value = 0;
  auto operator<=>(const Term&) const = default;
};

/// Final-condition proposition.
struct Prop {
  enum class Kind : uint8_t { True, False, Eq, Ne, Not, And, Or, Implies };
  Kind kind = Kind::True;
  Term lhs, rhs;           ///< Eq, Ne
  std::vector<Prop> kids;  ///< Not (1), And/Or/Implies (2)
};

/// `exists`, `~exists` or `forall` over a proposition.
struct Condition {
  enum class Quant : uint8_t { Exists, NotExists, Forall };
  Quant quant = Quant::Exists;
  Prop prop;
};

/// A parsed litmus test.
struct Test {
  std::string file;
  std::string arch = "PTX";
  std::string name;
  std::vector<std::string> docs;  ///< quoted doc strings after the name line
  std::vector<LocationDecl> locations;
  std::vector<RegInit> regInits;
  /// try_cancel launch queue: first-CTA ids of the grid's not-yet-launched clusters, in the order
  /// successive successful try_cancel requests take them (`.clc_pending 4, 6;`).
  std::vector<int64_t> clcPending;
  std::vector<Thread> threads;
  Condition condition;
  std::vector<Term> observed;  ///< `locations [ ... ]`: extra terms shown in each final state
  bool blockLayout = false;    ///< written as per-thread blocks (real PTX) rather than columns
  /// Warnings of the parse (Dat3M forms that PTX forbids, read with the dialect's meaning); the test is
  /// valid, the CLI prints them as `file:line:col: warning: ...`.
  std::vector<Diagnostic> warnings;
};

}  // namespace ptxmm::litmus
