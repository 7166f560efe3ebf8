#include "cat/HerdLib.hpp"

#include <algorithm>

namespace ptxmm::cat {

namespace {

// Translations first, then the names bound empty. Function entries use `fun` (the table is compiled in an
// empty scope: every free name is again a built-in or an entry of this table).
const std::vector<HerdName>& table() {
  static const std::vector<HerdName> t = [] {
    std::vector<HerdName> v = {
        // herd's stdlib.cat / cos.cat names that models/stdlib.cat does not define
        {"co0", R"(loc & ((IW * (W \ IW)) | ((W \ FW) * FW)))", false},
        {"pco",
         R"(co0 | ((po & loc) & (W * W)) | (rf ; ((po & loc) & (R * W))) | ((((po & loc) & (W * R)) ; rf^-1) \ id) | ((rf ; ((po & loc) & (R * R)) ; rf^-1) \ id))",
         false},
        {"ca", "fr | co", false},
        {"lxsx", R"(rmw \ amo)", false},
        {"tag2instrs", "tag2events", false},
        // event model: an atomic instruction is a read and a write related by rmw
        {"amo", "rmw", false},
        {"iico_data", "rmw", false},
        {"same-instr", "id | rmw | rmw^-1", false},
        {"same-instance", "same-instr", false},
        {"same-static", "same-instr", false},
        {"I", "IW", false},
        {"X", "RMW", false},
        {"Exp", "M", false},
        {"sm", "[M]", false},
        {"si", "[M]", false},
        // functions
        {"fromto", "fun S -> (po & (_ * S)) ; po", false},
        {"tag2fenced", "fun t -> fromto(tag2events t)", false},
        {"as_transitive", "fun r -> r+", false},
        {"inter_transitive", "fun (r, s) -> s & r+", false},
    };
    // No PTX counterpart: relations.
    for (const char* n : {"iico_ctrl", "iico_order", "rf-reg", "crit", "same-low-order-bits", "lrs", "lws", "pick-dep",
                          "pick-ctrl-dep", "pick-addr-dep", "pick-basic-dep", "same-tag-loc"})
      v.push_back({n, "0", true});
    // No PTX counterpart: functions of herd's VMSA / value primitives.
    v.push_back({"different-values", "fun r -> 0", true});
    v.push_back({"same-oa", "fun r -> 0", true});
    v.push_back({"oa-changes", "fun (S, r) -> {}", true});
    v.push_back({"at-least-one-writable", "fun (S, r) -> {}", true});
    v.push_back({"loc2events", "fun x -> {}", true});
    // No PTX counterpart: event sets (other architectures' instructions and annotations, register and
    // branch events, Linux-kernel and C11 lock events).
    for (const char* n : {"B",
                          "BCC",
                          "PRED",
                          "Rreg",
                          "Wreg",
                          "NExp",
                          "SPURIOUS",
                          "DATA",
                          "NDATA",
                          "PoD",
                          "A",
                          "Q",
                          "L",
                          "NoRet",
                          "NT",
                          "T",
                          "FAULT",
                          "TagCheck",
                          "MMU",
                          "TLBI",
                          "ADDR",
                          "EXC-ENTRY",
                          "EXC-RET",
                          "SVC",
                          "IC.IALLUIS",
                          "IC.IALLU",
                          "IC.IVAU",
                          "DC.CVAU",
                          "ISB",
                          "DMB.ISH",
                          "DMB.ISHLD",
                          "DMB.ISHST",
                          "DMB.OSH",
                          "DMB.OSHLD",
                          "DMB.OSHST",
                          "DMB.SY",
                          "DMB.LD",
                          "DMB.ST",
                          "DSB.ISH",
                          "DSB.ISHLD",
                          "DSB.ISHST",
                          "DSB.OSH",
                          "DSB.OSHLD",
                          "DSB.OSHST",
                          "DSB.SY",
                          "DSB.LD",
                          "DSB.ST",
                          "MFENCE",
                          "SFENCE",
                          "LFENCE",
                          "SYNC",
                          "LWSYNC",
                          "EIEIO",
                          "ISYNC",
                          "Fence.r.r",
                          "Fence.r.w",
                          "Fence.r.rw",
                          "Fence.w.r",
                          "Fence.w.w",
                          "Fence.w.rw",
                          "Fence.rw.r",
                          "Fence.rw.w",
                          "Fence.rw.rw",
                          "Fence.tso",
                          "Acq",
                          "Rel",
                          "AcqRel",
                          "Sc",
                          "EX",
                          "Rmb",
                          "Wmb",
                          "Mb",
                          "Before_atomic",
                          "After_atomic",
                          "Sync",
                          "Rb_dep",
                          "Acquire",
                          "Release",
                          "Noreturn",
                          "LKR",
                          "LKW",
                          "UL",
                          "LF",
                          "LS",
                          "LK"})
      v.push_back({n, "{}", true});
    return v;
  }();
  return t;
}

// ptxmm's filters.cat: herd's filter functions, written over ptxmm's built-ins (A: the atomic events
// of the model or of the engine's herd names, P: the others).
constexpr std::string_view kFilters = R"(filters
(* ptxmm built-in version of herd's filters.cat (cat/HerdLib.cpp) *)
let A = (try X with {}) | (try A with {})
let P = M \ A
let WW(r) = r & (W * W)
let WR(r) = r & (W * R)
let RW(r) = r & (R * W)
let RR(r) = r & (R * R)
let RM(r) = r & (R * M)
let MR(r) = r & (M * R)
let WM(r) = r & (W * M)
let MW(r) = r & (M * W)
let MM(r) = r & (M * M)
let AA(r) = r & (A * A)
let AP(r) = r & (A * P)
let PA(r) = r & (P * A)
let PP(r) = r & (P * P)
let AM(r) = r & (A * M)
let MA(r) = r & (M * A)
let noid(r) = r \ id
let invrf = rf^-1
let atom = [A]
)";

// ptxmm's cross.cat. herd builds coherence orders here by enumerating the linearisations of each location's
// writes; ptxmm's engines already choose co, so generate_orders / generate_cos are primitives (cat/
// Interpreter.hpp) that give back the engine's co when it extends the partial order, and nothing else.
constexpr std::string_view kCross = R"(cross
(* ptxmm built-in version of herd's cross.cat (cat/HerdLib.cpp) *)
(* co_locs(r, S): for each set of events of S, the set of its linearisations extending r *)
let co_locs (r, classes-of) =
  let rec each cs = match cs with
    || {} -> {}
    || c ++ rest -> linearisations(c, r) ++ each rest
  end in each classes-of
(* cross(S): every union of one relation taken from each set of relations of S *)
let cross =
  let rec with-each (x, ts) = match ts with
    || {} -> {}
    || t ++ rest -> (x | t) ++ with-each (x, rest)
  end in
  let rec product (s, ts) = match s with
    || {} -> {}
    || x ++ rest -> with-each (x, ts) | product (rest, ts)
  end in
  let rec all ss = match ss with
    || {} -> {0}
    || s ++ rest -> product (s, all rest)
  end in all
)";

}  // namespace

const std::vector<HerdName>& herdNames() { return table(); }

const HerdName* findHerdName(std::string_view name) {
  const auto& t = table();
  auto it = std::find_if(t.begin(), t.end(), [&](const HerdName& h) { return h.name == name; });
  return it == t.end() ? nullptr : &*it;
}

std::optional<std::string_view> builtinLibraryFile(std::string_view name) {
  if (name == "filters.cat") return kFilters;
  if (name == "cross.cat") return kCross;
  return std::nullopt;
}

}  // namespace ptxmm::cat
