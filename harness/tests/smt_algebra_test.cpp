// SymAlgebra against the concrete BitAlgebra on random partially symbolic relations, and the
// bit-vector value encoding against events::evalOp.
#include <z3++.h>

#include <catch2/catch.hpp>
#include <random>

#include "cat/BitAlgebra.hpp"
#include "events/Expr.hpp"
#include "smt/SymAlgebra.hpp"
#include "smt/ValueEncoder.hpp"

using namespace ptxmm;
using smt::Lit;

namespace {

// A random relation whose entries are false, true or one of the variables; plus its value under `assign`.
struct RandomRel {
  smt::SymRel sym;
  BitMatrix bits;
};

RandomRel randomRel(smt::SymAlgebra& a, std::mt19937& rng, const std::vector<Lit>& vars,
                    const std::vector<bool>& assign, int densityPct) {
  size_t n = a.numEvents();
  RandomRel r{a.emptyRel(), BitMatrix(n)};
  std::uniform_int_distribution<int> pct(0, 99);
  std::uniform_int_distribution<size_t> pick(0, vars.size() - 1);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      if (pct(rng) >= densityPct) continue;
      if (pct(rng) < 30) {
        r.sym.m[i * n + j] = smt::kTrue;
        r.bits.set(i, j);
      } else {
        size_t k = pick(rng);
        r.sym.m[i * n + j] = vars[k];
        if (assign[k]) r.bits.set(i, j);
      }
    }
  return r;
}

bool evalLit(smt::TermTable& t, Lit l, const z3::expr_vector& src, const z3::expr_vector& dst) {
  if (l == smt::kTrue) return true;
  if (l == smt::kFalse) return false;
  z3::expr e = t.expr(l);
  z3::expr s = e.substitute(src, dst).simplify();
  REQUIRE((s.is_true() || s.is_false()));
  return s.is_true();
}

BitMatrix evalRel(smt::TermTable& t, const smt::SymRel& r, size_t n, const z3::expr_vector& src,
                  const z3::expr_vector& dst) {
  BitMatrix m(n);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (evalLit(t, r.m[i * n + j], src, dst)) m.set(i, j);
  return m;
}

// acyclic uses existential clocks: decide `acyclic r` and its negation with a solver under the assignment.
void checkAcyclic(z3::context& ctx, smt::TermTable& terms, smt::SymAlgebra& a, const smt::SymRel& r,
                  const z3::expr_vector& src, const z3::expr_vector& dst, bool expected) {
  smt::SymBool ac = a.acyclic(r);
  smt::SymBool nac = a.notB(ac);
  for (int polarity = 0; polarity < 2; ++polarity) {
    z3::solver sol(ctx);
    for (unsigned k = 0; k < src.size(); ++k) sol.add(src[k] == dst[k]);
    sol.add(terms.expr(polarity == 0 ? ac.lit : nac.lit));
    z3::check_result res = sol.check();
    REQUIRE(res != z3::unknown);
    CHECK((res == z3::sat) == (polarity == 0 ? expected : !expected));
  }
}

}  // namespace

TEST_CASE("SymAlgebra agrees with BitAlgebra on random relations", "[smt][algebra]") {
  std::mt19937 rng(12345);
  for (int round = 0; round < 40; ++round) {
    z3::context ctx;
    smt::TermTable terms(ctx);
    size_t n = 3 + round % 6;
    smt::SymAlgebra a(terms, n);
    cat::BitAlgebra b(n);
    std::vector<Lit> vars;
    std::vector<bool> assign;
    z3::expr_vector src(ctx), dst(ctx);
    for (int k = 0; k < 5; ++k) {
      vars.push_back(terms.var("v" + std::to_string(k)));
      assign.push_back(rng() % 2 == 0);
      src.push_back(terms.expr(vars.back()));
      dst.push_back(ctx.bool_val(assign.back()));
    }
    int density = 15 + (round * 7) % 40;
    RandomRel r = randomRel(a, rng, vars, assign, density);
    RandomRel s = randomRel(a, rng, vars, assign, density);
    CHECK(evalRel(terms, a.seq(r.sym, s.sym), n, src, dst) == b.seq(r.bits, s.bits));
    CHECK(evalRel(terms, a.relUnion(r.sym, s.sym), n, src, dst) == b.relUnion(r.bits, s.bits));
    CHECK(evalRel(terms, a.relDiff(r.sym, s.sym), n, src, dst) == b.relDiff(r.bits, s.bits));
    CHECK(evalRel(terms, a.plus(r.sym), n, src, dst) == b.plus(r.bits));
    CHECK(evalRel(terms, a.star(r.sym), n, src, dst) == b.star(r.bits));
    CHECK(evalRel(terms, a.inverse(r.sym), n, src, dst) == b.inverse(r.bits));
    CHECK(evalRel(terms, a.cross(a.domain(r.sym), a.range(s.sym)), n, src, dst) ==
          b.cross(b.domain(r.bits), b.range(s.bits)));
    CHECK(evalLit(terms, a.irreflexive(r.sym).lit, src, dst) == b.irreflexive(r.bits));
    CHECK(evalLit(terms, a.isEmptyRel(r.sym).lit, src, dst) == b.isEmptyRel(r.bits));

    checkAcyclic(ctx, terms, a, r.sym, src, dst, r.bits.acyclic());
  }
}

TEST_CASE("SymAlgebra with a frame agrees with BitAlgebra on the executed events", "[smt][algebra][frame]") {
  // Events execute always, or under selector a, ¬a or b; events under a and ¬a never execute together.
  // Every result, read on the executed events, must be the concrete result on the relations restricted
  // to them (the middle event of `;`, the far end of domain/range and every event of a check execute).
  std::mt19937 rng(4242);
  for (int round = 0; round < 60; ++round) {
    z3::context ctx;
    smt::TermTable terms(ctx);
    const size_t n = 3 + round % 6;
    std::vector<Lit> vars;
    z3::expr_vector src(ctx), dst(ctx);
    std::vector<bool> assign;
    for (int k = 0; k < 7; ++k) {  // v0..v4 relation entries, v5 = a, v6 = b
      vars.push_back(terms.var("v" + std::to_string(k)));
      assign.push_back(rng() % 2 == 0);
      src.push_back(terms.expr(vars.back()));
      dst.push_back(ctx.bool_val(assign.back()));
    }
    const Lit sa = vars[5], sb = vars[6];
    const std::vector<Lit> choices = {smt::kTrue, sa, terms.mkNot(sa), sb};
    smt::Frame f;
    for (size_t i = 0; i < n; ++i) f.exec.push_back(choices[rng() % choices.size()]);
    f.implied = BitMatrix(n);
    f.cooc = BitMatrix(n);
    for (size_t k = 0; k < n; ++k)
      for (size_t i = 0; i < n; ++i) {
        if (f.exec[k] == smt::kTrue || f.exec[k] == f.exec[i]) f.implied.set(k, i);
        if (f.exec[i] != terms.mkNot(f.exec[k])) f.cooc.set(k, i);
      }
    BitSet executed(n);
    for (size_t i = 0; i < n; ++i)
      if (evalLit(terms, f.exec[i], src, dst)) executed.set(i);
    smt::SymAlgebra a(terms, n, "f_", f);
    cat::BitAlgebra b(n);
    BitMatrix onExecuted = b.cross(executed, executed);
    std::vector<Lit> relVars(vars.begin(), vars.begin() + 5);
    std::vector<bool> relAssign(assign.begin(), assign.begin() + 5);
    auto frameRel = [&](int density) {
      RandomRel r = randomRel(a, rng, relVars, relAssign, density);
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j)
          if (!f.cooc.test(i, j)) r.sym.m[i * n + j] = smt::kFalse;
      r.bits &= onExecuted;
      return r;
    };
    int density = 20 + (round * 7) % 40;
    RandomRel r = frameRel(density);
    RandomRel s = frameRel(density);
    auto onE = [&](const smt::SymRel& sym) { return evalRel(terms, sym, n, src, dst) & onExecuted; };
    INFO("round " << round);
    CHECK(onE(a.seq(r.sym, s.sym)) == b.seq(r.bits, s.bits));
    CHECK(onE(a.plus(r.sym)) == b.plus(r.bits));
    CHECK(onE(a.star(r.sym)) == (b.star(r.bits) & onExecuted));
    CHECK(onE(a.relComplement(r.sym)) == (b.relComplement(r.bits) & onExecuted));
    CHECK(onE(a.cross(a.domain(r.sym), a.range(s.sym))) == (b.cross(b.domain(r.bits), b.range(s.bits)) & onExecuted));
    CHECK(evalLit(terms, a.irreflexive(r.sym).lit, src, dst) == b.irreflexive(r.bits));
    CHECK(evalLit(terms, a.isEmptyRel(r.sym).lit, src, dst) == b.isEmptyRel(r.bits));
    CHECK(evalLit(terms, a.isEmptySet(a.domain(r.sym)).lit, src, dst) == b.isEmptySet(b.domain(r.bits)));
    checkAcyclic(ctx, terms, a, r.sym, src, dst, r.bits.acyclic());
  }
}

TEST_CASE("static simplification keeps constant relations constant", "[smt][algebra]") {
  z3::context ctx;
  smt::TermTable terms(ctx);
  smt::SymAlgebra a(terms, 4);
  BitMatrix m(4);
  m.set(0, 1);
  m.set(1, 2);
  m.set(2, 3);
  smt::SymRel r = a.constRel(m);
  size_t before = terms.numTerms();
  smt::SymRel p = a.plus(r);
  CHECK(terms.numTerms() == before);
  CHECK(p.m[0 * 4 + 3] == smt::kTrue);
  CHECK(p.m[3 * 4 + 0] == smt::kFalse);
  CHECK(a.knownBool(a.acyclic(r)) == std::optional<bool>(true));
  m.set(3, 0);
  CHECK(a.knownBool(a.acyclic(a.constRel(m))) == std::optional<bool>(false));
}

TEST_CASE("bit-vector encoding follows evalOp", "[smt][values]") {
  using events::ExprOp;
  std::mt19937_64 rng(7);
  const std::vector<int64_t> special = {0,
                                        1,
                                        -1,
                                        2,
                                        63,
                                        64,
                                        -64,
                                        INT64_MIN,
                                        INT64_MAX,
                                        7,
                                        -7,
                                        0x100000,
                                        events::mbarrierState(0, 2, 0),
                                        events::mbarrierState(-16, 1, 3),
                                        events::mbarrierState(16, 1, 5),
                                        events::mbarrierState(0, 1, 1)};
  auto val = [&](int k) { return k < 10 ? special[rng() % special.size()] : static_cast<int64_t>(rng() % 200) - 100; };
  const std::vector<std::pair<ExprOp, int>> ops = {
      {ExprOp::Add, 2},     {ExprOp::Sub, 2},         {ExprOp::Mul, 2}, {ExprOp::Div, 2},      {ExprOp::Rem, 2},
      {ExprOp::And, 2},     {ExprOp::Or, 2},          {ExprOp::Xor, 2}, {ExprOp::Shl, 2},      {ExprOp::Shr, 2},
      {ExprOp::Eq, 2},      {ExprOp::Ne, 2},          {ExprOp::Lt, 2},  {ExprOp::Le, 2},       {ExprOp::LNot, 1},
      {ExprOp::LAnd, 2},    {ExprOp::LOr, 2},         {ExprOp::Ite, 3}, {ExprOp::MbArrive, 4}, {ExprOp::MbTx, 3},
      {ExprOp::MbPhase, 1}, {ExprOp::MbArriveDrop, 4}};
  z3::context ctx;
  for (auto [op, arity] : ops) {
    for (int trial = 0; trial < 20; ++trial) {
      events::ExprPool pool;
      std::vector<int64_t> args;
      std::vector<events::ExprId> ids;
      for (int k = 0; k < arity; ++k) {
        args.push_back(val(trial));
        ids.push_back(pool.readVal(k));  // symbolic leaves, so the pool does not fold
      }
      if (op == ExprOp::MbArrive || op == ExprOp::MbTx || op == ExprOp::MbArriveDrop) args.back() = 1 + trial % 3;
      events::ExprId e = pool.make(op, ids);
      smt::ValueEncoder enc(ctx, pool,
                            [&](events::EventId r) { return ctx.bv_val(static_cast<uint64_t>(args[r]), 64); });
      z3::expr s = enc.encode(e).simplify();
      REQUIRE(s.is_numeral());
      uint64_t got = s.get_numeral_uint64();
      INFO("op " << static_cast<int>(op) << " trial " << trial);
      CHECK(static_cast<int64_t>(got) == events::evalOp(op, args));
    }
  }
}
