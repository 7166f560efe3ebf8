// cat interpreter on hand-built BitAlgebra environments: SC on SB, let rec fixpoints, with/forks,
// flags, variants, try, early cut, error messages with locations, a non-bool Bool algebra.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <map>
#include <random>

#include "BitTestSupport.hpp"
#include "cat/BitAlgebra.hpp"
#include "cat/Interpreter.hpp"
#include "events/Builtins.hpp"

using namespace ptxmm;
using namespace ptxmm::cat;

namespace {

BitSet setOf(size_t n, std::initializer_list<size_t> xs) {
  BitSet s(n);
  for (size_t x : xs) s.set(x);
  return s;
}
BitMatrix relOf(size_t n, std::initializer_list<std::pair<size_t, size_t>> xs) {
  BitMatrix r(n);
  for (auto [a, b] : xs) r.set(a, b);
  return r;
}

// SB: 0 = IW x, 1 = IW y, 2 = P0 W x, 3 = P0 R y, 4 = P1 W y, 5 = P1 R x.
BitAlgebra sbAlgebra(size_t rfY, size_t rfX) {
  const size_t n = 6;
  BitAlgebra a(n);
  a.setSet("W", setOf(n, {0, 1, 2, 4}));
  a.setSet("R", setOf(n, {3, 5}));
  a.setSet("M", setOf(n, {0, 1, 2, 3, 4, 5}));
  a.setSet("IW", setOf(n, {0, 1}));
  a.setSet("F", BitSet(n));
  a.setRel("po", relOf(n, {{2, 3}, {4, 5}}));
  BitMatrix loc(n);
  for (size_t i : {0, 2, 5})
    for (size_t j : {0, 2, 5}) loc.set(i, j);
  for (size_t i : {1, 3, 4})
    for (size_t j : {1, 3, 4}) loc.set(i, j);
  a.setRel("loc", loc);
  BitMatrix intr = BitMatrix::identity(n);
  intr.set(2, 3);
  intr.set(3, 2);
  intr.set(4, 5);
  intr.set(5, 4);
  a.setRel("int", intr);
  a.setRel("ext", BitMatrix::full(n) - intr);
  BitMatrix co = relOf(n, {{0, 2}, {1, 4}});
  BitMatrix rf = relOf(n, {{rfY, 3}, {rfX, 5}});
  a.setRel("co", co);
  a.setRel("rf", rf);
  a.setRel("fr", rf.transpose().compose(co));
  return a;
}

std::string runError(const std::string& text, const std::vector<std::string>& variants = {}) {
  try {
    Model m = parseModel(text, "m.cat");
    Interpreter<BitAlgebra> in(m, InterpreterOptions{variants, {}});
    BitAlgebra a = sbAlgebra(1, 0);
    (void)in.run(a);
  } catch (const DiagnosticError& e) {
    return e.what();
  }
  return "";
}

/// A Bool that is not `bool` and is not default-constructible, without knownBool: the interpreter
/// must work through the algebra only (as with the z3 algebra).
struct OpaqueBool {
  explicit OpaqueBool(bool v) : v(v) {}
  bool v;
};
class OpaqueAlgebra : public BitAlgebra {
 public:
  using Bool = OpaqueBool;
  using BitAlgebra::BitAlgebra;
  OpaqueBool acyclic(const Rel& r) const { return OpaqueBool(BitAlgebra::acyclic(r)); }
  OpaqueBool irreflexive(const Rel& r) const { return OpaqueBool(BitAlgebra::irreflexive(r)); }
  OpaqueBool isEmptySet(const Set& s) const { return OpaqueBool(BitAlgebra::isEmptySet(s)); }
  OpaqueBool isEmptyRel(const Rel& r) const { return OpaqueBool(BitAlgebra::isEmptyRel(r)); }
  OpaqueBool notB(const OpaqueBool& b) const { return OpaqueBool(!b.v); }
};
static_assert(Algebra<OpaqueAlgebra>);
static_assert(!HasKnownBool<OpaqueAlgebra>);

}  // namespace

TEST_CASE("SC model on SB: exactly the non-SC outcome is forbidden", "[cat][interp]") {
  Model m = parseModel("SC\nlet com = rf | co | fr\nacyclic po | com as sc\n", "sc.cat");
  Interpreter<BitAlgebra> in(m);
  int allowed = 0;
  for (size_t rfY : {1, 4})
    for (size_t rfX : {0, 2}) {
      BitAlgebra a = sbAlgebra(rfY, rfX);
      auto r = in.run(a);
      REQUIRE(r.outcomes.size() == 1);
      REQUIRE(r.outcomes[0].checks.size() == 1);
      CHECK(r.outcomes[0].checks[0].info->name == "sc");
      bool ok = isAllowed(r.outcomes[0]);
      CHECK(ok == !(rfY == 1 && rfX == 0));
      allowed += ok;
    }
  CHECK(allowed == 3);
}

TEST_CASE("stdlib names are available (rfe, fre, po-loc, fencerel)", "[cat][interp]") {
  Model m = parseModel(
      "T\nempty rfe as no-rfe\nempty fre as no-fre\nempty po-loc as no-poloc\nempty fencerel(R) as nofence\n", "t.cat");
  Interpreter<BitAlgebra> in(m);
  BitAlgebra a = sbAlgebra(1, 0);  // all reads from init: rf external (IW), fr external
  auto r = in.run(a, RunOptions{false, false});
  REQUIRE(r.outcomes[0].checks.size() == 4);
  CHECK_FALSE(r.outcomes[0].checks[0].value);  // IW -> read is ext
  CHECK_FALSE(r.outcomes[0].checks[1].value);  // read -> other thread's write
  CHECK(r.outcomes[0].checks[2].value);        // po pairs are on different locations
  CHECK(r.outcomes[0].checks[3].value);        // nothing after a read in po
}

TEST_CASE("let rec computes the least fixpoint (transitive closure)", "[cat][interp]") {
  std::mt19937 rng(7);
  Model m = parseModel(
      "T\nlet rec t = r | (t ; t)\nlet rec u = r | (u ; r)\nshow t as t\nshow u as u\n"
      "let rec even = [S] | odd ; r and odd = even ; r\nshow even as even\n",
      "t.cat");
  Interpreter<BitAlgebra> in(m);
  for (int trial = 0; trial < 20; ++trial) {
    const size_t n = 12;
    BitMatrix r(n);
    std::uniform_int_distribution<int> d(0, 99);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        if (d(rng) < 12) r.set(i, j);
    BitAlgebra a(n);
    a.setRel("r", r);
    a.setSet("S", BitSet::full(n));
    auto res = in.run(a, RunOptions{true, true});
    REQUIRE(res.outcomes[0].shows.size() == 3);
    CHECK(*res.outcomes[0].shows[0].rel == r.transitiveClosure());
    CHECK(*res.outcomes[0].shows[1].rel == r.transitiveClosure());
    // even-length paths (incl. length 0) = id | (r;r)+
    BitMatrix rr = r.compose(r);
    CHECK(*res.outcomes[0].shows[2].rel == (BitMatrix::identity(n) | rr.transitiveClosure()));
  }
}

TEST_CASE("with x from linearisations forks the model", "[cat][interp]") {
  Model m = parseModel(
      "T\nwith sco from linearisations(W, [W] ; po ; [W])\nacyclic sco | po as order\n"
      "flag ~empty (sco & (IW * (W \\ IW))) as init-first\n",
      "t.cat");
  Interpreter<BitAlgebra> in(m);
  BitAlgebra a(4);
  a.setSet("W", setOf(4, {0, 1, 2}));
  a.setSet("IW", setOf(4, {0}));
  a.setRel("po", relOf(4, {{1, 2}, {2, 3}}));
  auto r = in.run(a);
  REQUIRE(r.outcomes.size() == 3);  // 3 orders of {0,1,2} with 1 before 2
  for (const auto& o : r.outcomes) {
    CHECK(isAllowed(o));
    REQUIRE(o.checks.size() == 2);
  }
  int raised = 0;
  for (const auto& o : r.outcomes) raised += !raisedFlags(o).empty();
  CHECK(raised == 2);  // 0,1,2 and 1,0,2 put the init write before another write; 1,2,0 does not
  // empty set: no outcome at all
  BitAlgebra b(2);
  b.setSet("W", BitSet(2));
  b.setSet("IW", BitSet(2));
  b.setRel("po", BitMatrix(2));
  Model m2 = parseModel("T\nwith x from {}\nacyclic po\n", "t.cat");
  CHECK(Interpreter<BitAlgebra>(m2).run(b).outcomes.empty());
  // forking over event sets, forall, classes-loc
  Model m3 = parseModel(
      "T\nwith e from W\nforall c in classes-loc(W) do empty c \\ W end\nflag empty [e] ; po as no-po-succ\n", "t.cat");
  auto r3 = Interpreter<BitAlgebra>(m3).run(a);
  REQUIRE(r3.outcomes.size() == 3);
  int noSucc = 0;
  for (const auto& o : r3.outcomes) noSucc += raisedFlags(o).size();
  CHECK(noSucc == 1);  // only event 0 has no po successor
}

TEST_CASE("flags, undefined_unless, negation and early cut", "[cat][interp]") {
  Model m = parseModel(
      "T\nflag ~empty rf & ext as ext-read\nundefined_unless empty rf & int as no-int\n"
      "acyclic po | rf | co | fr as sc\nflag empty 0 as after\n",
      "t.cat");
  Interpreter<BitAlgebra> in(m);
  BitAlgebra bad = sbAlgebra(1, 0);
  auto r = in.run(bad);
  REQUIRE(r.outcomes.size() == 1);
  const auto& o = r.outcomes[0];
  CHECK(o.cut);
  REQUIRE(o.checks.size() == 3);  // stopped at the failing sc check
  CHECK(o.checks[0].info->kind == CheckKind::Flag);
  CHECK(o.checks[0].info->negated);
  CHECK(o.checks[0].value);  // raised
  CHECK(raisedFlags(o) == std::vector<std::string>{"ext-read"});
  CHECK_FALSE(isUndefined(o));
  CHECK_FALSE(isAllowed(o));
  auto full = in.run(bad, RunOptions{false, false});
  CHECK(full.outcomes[0].checks.size() == 4);
  CHECK_FALSE(full.outcomes[0].cut);
  BitAlgebra good = sbAlgebra(4, 2);
  auto r2 = in.run(good);
  CHECK(isAllowed(r2.outcomes[0]));
  CHECK(r2.outcomes[0].checks.size() == 4);
  CHECK(in.checks().size() == 4);
  CHECK(in.checks()[1].kind == CheckKind::Undefined);
}

TEST_CASE("generated check names, variants, try, skip", "[cat][interp]") {
  Model m = parseModel(
      "T\nacyclic po\nif \"strict\" empty po as strict else acyclic po as lax end\n"
      "let f = try fencerel(MFENCE) with 0\nempty f as nofence\nacyclic po as skipme\n",
      "dir/t.cat");
  Interpreter<BitAlgebra> plain(m, InterpreterOptions{{}, {"skipme"}});
  REQUIRE(plain.checks().size() == 3);
  CHECK(plain.checks()[0].name == "acyclic@t.cat:2");
  CHECK(plain.checks()[1].name == "lax");
  CHECK(plain.checks()[2].name == "nofence");
  Interpreter<BitAlgebra> strict(m, InterpreterOptions{{"strict"}, {}});
  REQUIRE(strict.checks().size() == 4);
  CHECK(strict.checks()[1].name == "strict");
  BitAlgebra a = sbAlgebra(4, 2);
  auto r = strict.run(a);
  REQUIRE(r.outcomes[0].checks.size() == 2);  // cut at the failing `strict`
  CHECK_FALSE(isAllowed(r.outcomes[0]));
  auto r2 = plain.run(a);
  CHECK(isAllowed(r2.outcomes[0]));
  CHECK(r2.outcomes[0].checks.size() == 3);
}

TEST_CASE("functions, tuples, match, procedures", "[cat][interp]") {
  Model m = parseModel(R"(T
enum Scope = 'cta || 'gpu || 'sys
let wider(s) = match s with || 'cta -> 'gpu || 'gpu -> 'sys || _ -> 'sys end
let pick(s) = match s with || 'cta -> po || _ -> 0 end
let both(a, b) = a | b
let curried a b = a ; b
let count-set S = match S with || {} -> 0 || x ++ rest -> po end
procedure is-acyclic(r, name) = acyclic r end
call is-acyclic(both(po, rf), 'x) as ignored
empty pick(wider('cta)) as w
~empty pick('cta) as p
empty curried po po as cp
empty count-set({}) as cs
~empty (~{'cta} & {'gpu, 'sys}) as tags
empty (let x = po in x \ po) as letin
acyclic (fun (a, b) -> a ; b) (po, po) as lam
)",
                       "t.cat");
  Interpreter<BitAlgebra> in(m);
  BitAlgebra a = sbAlgebra(4, 2);
  auto r = in.run(a, RunOptions{false, false});
  const auto& o = r.outcomes[0];
  REQUIRE(o.checks.size() == 8);
  for (const auto& c : o.checks) {
    INFO(c.info->name);
    CHECK(c.value);
  }
}

TEST_CASE("evaluation errors carry file:line:col", "[cat][interp]") {
  CHECK(runError("T\nacyclic W") ==
        "m.cat:2:9: error: acyclic expects a relation, got an event set (set used where a relation is expected)");
  CHECK(runError("T\nlet x = foo\nacyclic x") == "m.cat:2:9: error: unknown name 'foo'");
  CHECK(runError("T\nlet unused = foo\nacyclic po") == "");  // lazy, as herd
  CHECK(runError("T\nlet f(x, y) = x | y\nacyclic f(po)") ==
        "m.cat:3:9: error: function 'f' expects 2 arguments, got 1");
  CHECK(runError("T\nempty F | 0") ==
        "m.cat:2:11: error: type error: '|' of an event set and a relation ('0' is "
        "the empty relation; the empty set is {})");
  CHECK(runError("T\nlet po-loc2 = po\nacyclic po-lco2") ==
        "m.cat:3:9: error: unknown name 'po-lco2' (did you mean 'po-loc2'?)");
  CHECK(runError("T\nlet rec f x = f x\nacyclic f(po)") ==
        "m.cat:2:15: error: recursion deeper than 400 calls (non-terminating function?)");
  CHECK(runError("T\nlet s = [po]\nempty s") ==
        "m.cat:2:10: error: '[...]' expects an event set, got a relation (relation used where a set is expected)");
  CHECK(
      runError("T\nlet rec t = po \\ t\nempty t") ==
      "m.cat:2:9: error: 'let rec' definition of 't' does not converge after 8 iterations (non-monotone definition?)");
  CHECK(runError("T\nempty domain(W)") ==
        "m.cat:2:14: error: domain expects a relation, got an event set (set used where a relation is expected)");
  CHECK(runError("T\nlet x = po ; W\nempty x") ==
        "m.cat:2:14: error: ';' expects a relation, got an event set (set used where a relation is expected)");
  CHECK(runError("T\nacyclic po (rf)") == "m.cat:2:9: error: not a function: a relation");
  CHECK(runError("T\nprocedure p(x) = with y from x end").find("m.cat:2:18: error: 'with' is only supported") == 0);
  CHECK(runError("T\nassert empty po as a").find("error: assertion failed: a") != std::string::npos);
}

TEST_CASE("the interpreter works for an algebra whose Bool is not bool", "[cat][interp]") {
  Model m = parseModel("SC\nacyclic po | rf | co | fr as sc\nflag ~empty rf & ext as e\n", "sc.cat");
  Interpreter<OpaqueAlgebra> in(m);
  for (size_t rfY : {1, 4})
    for (size_t rfX : {0, 2}) {
      BitAlgebra b = sbAlgebra(rfY, rfX);
      OpaqueAlgebra a(6);
      for (const char* s : {"W", "R", "M", "IW", "F"}) a.setSet(s, *b.builtinSet(s));
      for (const char* s : {"po", "loc", "int", "ext", "co", "rf", "fr"}) a.setRel(s, *b.builtinRel(s));
      auto r = in.run(a);
      REQUIRE(r.outcomes.size() == 1);
      REQUIRE(r.outcomes[0].checks.size() == 2);  // no early cut without knownBool
      CHECK(r.outcomes[0].checks[0].value.v == !(rfY == 1 && rfX == 0));
    }
}

TEST_CASE("every models/*.cat evaluates on a small execution without errors", "[cat][interp][models]") {
  // The built-ins of events/Builtins.def (sets and relations),
  // other names unknown (model knobs fall back to their `try ... with` defaults). Random contents: this checks the
  // models are well-typed, not their verdicts.
  class AnyAlgebra : public BitAlgebra {
   public:
    using BitAlgebra::BitAlgebra;
    std::mt19937 rng{3};
    std::optional<Set> builtinSet(std::string_view name) {
      const auto* b = ptxmm::events::findBuiltin(name);
      if (!b || !b->isSet()) return std::nullopt;
      BitSet s(numEvents());
      for (size_t i = 0; i < numEvents(); ++i)
        if (rng() % 3 == 0) s.set(i);
      return s;
    }
    std::optional<Rel> builtinRel(std::string_view name) {
      if (auto r = BitAlgebra::builtinRel(name)) return r;
      const auto* b = ptxmm::events::findBuiltin(name);
      if (!b || b->isSet()) return std::nullopt;
      BitMatrix r(numEvents());
      for (size_t i = 0; i < numEvents(); ++i)
        for (size_t j = i + 1; j < numEvents(); ++j)
          if (rng() % 4 == 0) r.set(i, j);
      return r;
    }
  };
  namespace fs = std::filesystem;
  for (const auto& entry : fs::directory_iterator(libraryDir())) {
    if (entry.path().extension() != ".cat") continue;
    INFO(entry.path().string());
    Model m = loadModel(entry.path());
    Interpreter<AnyAlgebra> in(m);
    for (int k = 0; k < 5; ++k) {
      AnyAlgebra a(7);
      a.setRel("loc", BitMatrix::full(7));
      CHECK_NOTHROW(in.run(a, RunOptions{false, true}));
    }
  }
}

TEST_CASE("benchmark: models/ptx.cat per candidate", "[.bench]") {
  namespace fs = std::filesystem;
  fs::path path = libraryDir() / "ptx.cat";
  if (!fs::exists(path)) return;
  Model m = loadModel(path);
  Interpreter<BitAlgebra> in(m);
  const size_t n = 16;
  std::mt19937 rng(5);
  BitAlgebra a(n);
  for (const auto& name : in.builtinNames()) {
    bool upper = true;
    for (char c : name) upper = upper && !std::islower(static_cast<unsigned char>(c));
    if (upper) {
      BitSet s(n);
      for (size_t i = 0; i < n; ++i)
        if (rng() % 3 == 0) s.set(i);
      a.setSet(name, s);
    } else if (name.rfind("variant-", 0) != 0 && name.find("knob") == std::string::npos) {
      BitMatrix r(n);
      for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j)
          if (rng() % 5 == 0) r.set(i, j);
      a.setRel(name, r);
    }
  }
  const int runs = 2000;
  for (bool cached : {false, true}) {
    RunCache<BitAlgebra> cache;
    auto t0 = std::chrono::steady_clock::now();
    size_t checks = 0;
    for (int k = 0; k < runs; ++k)
      checks += in.run(a, RunOptions{false, false}, cached ? &cache : nullptr).outcomes[0].checks.size();
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / runs;
    WARN("ptx.cat: " << us << " us per run (cache " << cached << "), " << checks / runs << " checks, "
                     << in.builtinNames().size() << " builtins");
  }
}

TEST_CASE("RunCache reuses static definitions and gives the same results", "[cat][interp]") {
  Model m = parseModel(R"(T
let stat = po ; po | [W] ; po
let dyn = rf | co | fr
let mixed = stat | dyn
let rec hb = po | rf | (hb ; hb)
let rec sh = po | (sh ; sh)
acyclic mixed | po as a
flag ~empty stat as s
flag ~empty (hb & loc) as h
empty sh \ po+ as closure
)",
                       "t.cat");
  Interpreter<BitAlgebra> in(m);
  RunCache<BitAlgebra> cache;
  for (int round = 0; round < 2; ++round)
    for (size_t rfY : {1, 4})
      for (size_t rfX : {0, 2}) {
        BitAlgebra a = sbAlgebra(rfY, rfX);
        auto plain = in.run(a, RunOptions{false, false});
        auto cached = in.run(a, RunOptions{false, false}, &cache);
        REQUIRE(plain.outcomes[0].checks.size() == cached.outcomes[0].checks.size());
        for (size_t k = 0; k < plain.outcomes[0].checks.size(); ++k)
          CHECK(plain.outcomes[0].checks[k].value == cached.outcomes[0].checks[k].value);
        CHECK(isAllowed(cached.outcomes[0]) == !(rfY == 1 && rfX == 0));
      }
  // the cache really holds static values: a changed static built-in is not seen until clear()
  BitAlgebra a = sbAlgebra(4, 2);
  a.setRel("po", BitMatrix(6));
  auto stale = in.run(a, RunOptions{false, false}, &cache);
  CHECK(raisedFlags(stale.outcomes[0]) == std::vector<std::string>{"s", "h"});  // stat from the cache
  cache.clear();
  auto fresh = in.run(a, RunOptions{false, false}, &cache);
  CHECK(raisedFlags(fresh.outcomes[0]) == std::vector<std::string>{"h"});
  Model m2 = parseModel("T\nlet stat = po\nflag ~empty stat as s\n", "t.cat");
  Interpreter<BitAlgebra> in2(m2);
  RunCache<BitAlgebra> c2;
  BitAlgebra withPo = sbAlgebra(4, 2), noPo = sbAlgebra(4, 2);
  noPo.setRel("po", BitMatrix(6));
  CHECK(raisedFlags(in2.run(withPo, {}, &c2).outcomes[0]).size() == 1);
  CHECK(raisedFlags(in2.run(noPo, {}, &c2).outcomes[0]).size() == 1);  // cached (stale by contract)
  c2.clear();
  CHECK(raisedFlags(in2.run(noPo, {}, &c2).outcomes[0]).empty());
}

// Runs `in` on `a` without a cache, then twice with one: no flag may be raised (each flag of these models is
// the difference between two ways of writing one relation).
static void requireNoFlags(const Interpreter<BitAlgebra>& in, BitAlgebra& a) {
  RunCache<BitAlgebra> cache;
  for (RunCache<BitAlgebra>* c : {static_cast<RunCache<BitAlgebra>*>(nullptr), &cache, &cache}) {
    auto r = in.run(a, RunOptions{false, false}, c);
    REQUIRE(r.outcomes.size() == 1);
    CHECK(raisedFlags(r.outcomes[0]).empty());
  }
}

TEST_CASE("a sequence through [S] operands equals the same relation restricted to S", "[cat][interp]") {
  // The interpreter takes `[S]` operands of a sequence (written so, or a name of a static `let x = [S]`)
  // as restrictions of their neighbours: each left-hand side below must equal its right-hand side, written
  // without such a sequence. A difference raises a flag.
  std::mt19937 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    const size_t n = 3 + static_cast<size_t>(trial % 7);
    BitSet sa(n), sb(n);
    for (size_t i = 0; i < n; ++i) {
      if (rng() % 2) sa.set(i);
      if (rng() % 2) sb.set(i);
    }
    const std::string model = R"(T
let dA = [A]
let dB = [B]
flag ~empty (([A] ; r ; [B]) \ (r & (A * B))) | ((r & (A * B)) \ ([A] ; r ; [B])) as dom-range
flag ~empty ((dA ; r ; dB) \ (r & (A * B))) | ((r & (A * B)) \ (dA ; r ; dB)) as names
flag ~empty (([A] ; [B] ; r) \ (r & ((A & B) * _))) | ((r & ((A & B) * _)) \ ([A] ; [B] ; r)) as two-doms
flag ~empty ((r ; [A] ; s) \ ((r & (_ * A)) ; s)) | (((r & (_ * A)) ; s) \ (r ; [A] ; s)) as middle
flag ~empty ((r ; dA ; dB ; s) \ ((r & (_ * (A & B))) ; s)) | (((r & (_ * (A & B))) ; s) \ (r ; dA ; dB ; s)) as middle-names
flag ~empty (([A] ; [B]) \ [A & B]) | ([A & B] \ ([A] ; [B])) as only-sets
flag ~empty (([_] ; r ; [_]) \ r) | (r \ ([_] ; r ; [_])) as universe
flag ~empty [A] ; r ; [E] as empty-set
flag ~empty (([A] ; r ; s ; [B] ; r ; [A]) \ (((r ; s) & (A * B)) ; (r & (_ * A)))) | ((((r ; s) & (A * B)) ; (r & (_ * A))) \ ([A] ; r ; s ; [B] ; r ; [A])) as long
)";
    Interpreter<BitAlgebra> in(parseModel(model, "t.cat"));
    BitAlgebra a(n);
    a.setSet("A", sa);
    a.setSet("B", sb);
    a.setSet("E", BitSet(n));
    a.setRel("r", bittesting::randomMatrix(n, rng, 40));
    a.setRel("s", bittesting::randomMatrix(n, rng, 40));
    requireNoFlags(in, a);
  }
}

TEST_CASE("unions and intersections reuse temporaries only: definitions keep their values", "[cat][interp]") {
  // The interpreter unites and intersects in place into an operand no other value holds (HasInPlace). A
  // definition's value, a cached one or a built-in is shared, and must come out of every use unchanged.
  const char* model = R"(T
let a = po | rf
let b = a | co | (rf ; po)
let c = a & co
let d = (po | co) & a
let e = co | (po | rf) | a
flag ~empty (a \ (po | rf)) | ((po | rf) \ a) as a-changed
flag ~empty (b \ (po | rf | co | (rf ; po))) | ((po | rf | co | (rf ; po)) \ b) as b-wrong
flag ~empty (c \ ((po | rf) & co)) | (((po | rf) & co) \ c) as c-wrong
flag ~empty (d \ ((po | co) & (po | rf))) | (((po | co) & (po | rf)) \ d) as d-wrong
flag ~empty (e \ (co | po | rf)) | ((co | po | rf) \ e) as e-wrong
flag ~empty (po \ po0) | (po0 \ po) as po-changed
)";
  Interpreter<BitAlgebra> in(parseModel(model, "t.cat"));
  std::mt19937 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    const size_t n = 3 + static_cast<size_t>(trial % 6);
    BitAlgebra a(n);
    BitMatrix po = bittesting::randomMatrix(n, rng, 40);
    a.setRel("po", po);
    a.setRel("po0", po);
    a.setRel("rf", bittesting::randomMatrix(n, rng, 30));
    a.setRel("co", bittesting::randomMatrix(n, rng, 30));
    requireNoFlags(in, a);
  }
}

TEST_CASE("RunCache keeps the static subexpressions of dynamic definitions", "[cat][interp][cache]") {
  // `po ; po` and `[W]` do not depend on rf: computed by the first run with the cache, then taken from it
  // (stale by contract when a static built-in changes without clear()), as a static definition is.
  Model m = parseModel("T\nlet mixed = rf | (po ; po) | ([W] ; rf)\nflag ~empty mixed & loc as l\n", "t.cat");
  Interpreter<BitAlgebra> in(m);
  RunCache<BitAlgebra> cache;
  BitAlgebra a(3);
  a.setSet("W", setOf(3, {0}));
  a.setRel("loc", relOf(3, {{0, 2}}));
  a.setRel("po", relOf(3, {{0, 1}, {1, 2}}));
  a.setRel("rf", BitMatrix(3));
  CHECK(raisedFlags(in.run(a, RunOptions{false, false}, &cache).outcomes[0]).size() == 1);  // (0,2) from po ; po
  a.setRel("po", BitMatrix(3));
  CHECK(raisedFlags(in.run(a, RunOptions{false, false}).outcomes[0]).empty());
  CHECK(raisedFlags(in.run(a, RunOptions{false, false}, &cache).outcomes[0]).size() == 1);  // po ; po cached
  a.setRel("rf", relOf(3, {{0, 2}}));  // rf is dynamic: seen with the cache too
  a.setRel("loc", relOf(3, {{0, 1}}));
  CHECK(raisedFlags(in.run(a, RunOptions{false, false}, &cache).outcomes[0]).size() == 1);  // stale (0,1) of po ; po
  cache.clear();
  CHECK(raisedFlags(in.run(a, RunOptions{false, false}, &cache).outcomes[0]).empty());
  a.setRel("loc", relOf(3, {{0, 2}}));  // loc is static: a new one needs clear()
  cache.clear();
  CHECK(raisedFlags(in.run(a, RunOptions{false, false}, &cache).outcomes[0]).size() == 1);  // (0,2) from rf
}

TEST_CASE("a RunCache works for a model without top-level definitions", "[cat][interp][cache]") {
  // No `let`: zero top-level slots. The cache must still be set up for the built-ins it memoises.
  Model m = parseModel("T\nacyclic po | rf as a\nempty rf & po as b\n", "t.cat", {.includeDirs = {}, .prelude = false});
  Interpreter<BitAlgebra> in(m);
  RunCache<BitAlgebra> cache;
  for (int k = 0; k < 3; ++k) {
    BitAlgebra a(2);
    BitMatrix po(2), rf(2);
    po.set(0, 1);
    if (k == 1) rf.set(1, 0);
    a.setRel("po", po);
    a.setRel("rf", rf);
    auto r = in.run(a, RunOptions{false, false}, &cache);
    REQUIRE(r.outcomes.size() == 1);
    REQUIRE(r.outcomes[0].checks.size() == 2);
    CHECK(r.outcomes[0].checks[0].value == (k != 1));
  }
}

TEST_CASE("checkRank evaluates the top-level plain checks by rank on the values bound before each", "[cat][interp]") {
  // r is bound twice: the first check must see the empty relation even when evaluated after the second
  // binding (every binding has its own slot). `with` evaluates the checks before it first.
  Model m = parseModel(
      "T\nlet r = 0\nempty r as first\nlet r = po\nflag ~empty r as has-po\nacyclic r as second\n"
      "irreflexive r ; r as third\nwith e from W\nempty e \\ W as fourth\n",
      "t.cat");
  Interpreter<BitAlgebra> in(m);
  BitAlgebra a(3);
  a.setSet("W", setOf(3, {0, 1}));
  a.setRel("po", relOf(3, {{0, 1}, {1, 2}}));
  // By name; `with` has a check of its own (the chosen element exists), never deferred.
  const std::map<std::string, uint32_t> byName{{"first", 3}, {"second", 2}, {"third", 1}, {"fourth", 4}};
  std::vector<uint32_t> rank;
  for (const auto& c : in.checks()) rank.push_back(byName.count(c.name) ? byName.at(c.name) : 0);
  REQUIRE(rank.size() == 6);
  RunOptions ro;
  ro.checkRank = &rank;
  auto r = in.run(a, ro);
  REQUIRE(r.outcomes.size() == 2);
  for (const auto& o : r.outcomes) {
    CHECK_FALSE(o.cut);
    CHECK(isAllowed(o));  // `first` holds: it saw r = 0
    std::vector<std::string> names;
    for (const auto& c : o.checks) names.push_back(c.info->name);
    // The flag stays in place; the plain checks before `with` by rank (third, second, first), then
    // those after it.
    CHECK(names == std::vector<std::string>{"has-po", "third", "second", "first", "fourth"});
  }
  Model f = parseModel("T\nacyclic po^-1 | po as a\nirreflexive po as b\nempty po as c\n", "t.cat");
  Interpreter<BitAlgebra> fin(f);
  // The one outcome of `fin` run with `ranks`, which must have evaluated only the check `name`.
  auto onlyCheck = [&](const std::vector<uint32_t>* ranks, const std::string& name) {
    ro.checkRank = ranks;
    auto res = fin.run(a, ro);
    REQUIRE(res.outcomes.size() == 1);
    REQUIRE(res.outcomes[0].checks.size() == 1);
    CHECK(res.outcomes[0].checks[0].info->name == name);
    return res.outcomes[0].cut;
  };
  // With stopAtFailedCheck, the check ranked first among the failing ones cuts the outcome.
  const std::vector<uint32_t> cFirst{1, 2, 0};
  CHECK(onlyCheck(&cFirst, "c"));
  // A check ranked kSkipCheck is not evaluated: with `a` and `c` skipped, only `b` is, and it holds.
  const std::vector<uint32_t> onlyB{RunOptions::kSkipCheck, 0, RunOptions::kSkipCheck};
  CHECK_FALSE(onlyCheck(&onlyB, "b"));
  const std::vector<uint32_t> tooFew{0, 1};
  ro.checkRank = &tooFew;
  CHECK_THROWS_WITH(fin.run(a, ro), Catch::Matchers::Contains("2 ranks for 3 checks"));
  onlyCheck(nullptr, "a");  // model order: `a` fails first
}
