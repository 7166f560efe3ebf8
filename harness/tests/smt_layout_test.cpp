// The narrow value layout of the smt engine (smt/ValueLayout.hpp): widths from value ranges, the fallbacks
// to 64 bits, and the narrow bit-vector encoding against events::evalOp.
#include <z3++.h>

#include <catch2/catch.hpp>
#include <random>

#include "events/Expr.hpp"
#include "smt/ValueEncoder.hpp"
#include "smt/ValueLayout.hpp"

using namespace ptxmm;
using events::ExprOp;
using smt::ValueKind;

TEST_CASE("value layout: an increment chain fits the bits its ranges need", "[smt][layout]") {
  // x = 0 initially; one thread writes 5, another x = r + 1 with r a read of x (event 1).
  events::ExprPool pool;
  smt::LayoutInput in;
  const events::ExprId r = pool.readVal(1);
  const events::ExprId inc = pool.make(ExprOp::Add, {r, pool.constant(1)});
  in.writesByLoc = {{pool.constant(0), pool.constant(5), inc}};
  in.readLoc = {-1, 0};
  smt::ValueLayout l = smt::computeLayout(pool, in);
  REQUIRE(l.narrow);
  // One read: its values 0..6 (0, 5 or one increment), the increment 1..7: 4 bits two's complement.
  CHECK(l.plain == 4);
  CHECK(l.locKind.at(0) == ValueKind::Plain);
  for (int64_t v = -8; v < 8; ++v) {
    REQUIRE(l.encode(ValueKind::Plain, v).has_value());
    CHECK(l.decode(ValueKind::Plain, *l.encode(ValueKind::Plain, v)) == v);
  }
  CHECK_FALSE(l.encode(ValueKind::Plain, 8).has_value());
  CHECK_FALSE(l.encode(ValueKind::Plain, -9).has_value());
  // Reads that no write uses do not lengthen the chains: twenty reads of a location z written 0 or 1 keep
  // the increment at one read.
  in.writesByLoc.push_back({pool.constant(0), pool.constant(1)});
  for (int k = 0; k < 20; ++k) in.readLoc.push_back(1);
  CHECK(smt::computeLayout(pool, in).plain == 4);
  // A cycle of two locations (x = y + 1, y = x + 1): chains of two reads.
  {
    events::ExprPool p2;
    smt::LayoutInput c;
    c.writesByLoc = {{p2.constant(0), p2.make(ExprOp::Add, {p2.readVal(2), p2.constant(1)})},
                     {p2.constant(0), p2.make(ExprOp::Add, {p2.readVal(1), p2.constant(1)})}};
    c.readLoc = {-1, 0, 1};
    smt::ValueLayout lc = smt::computeLayout(p2, c);
    REQUIRE(lc.narrow);
    CHECK(lc.plain <= 3);
    CHECK(lc.encode(ValueKind::Plain, 2).has_value());
  }
  // A constant the condition compares with widens the plain values.
  in.plainConstants = {1000};
  CHECK(smt::computeLayout(pool, in).plain == 11);
}

TEST_CASE("value layout: mbarrier states get narrow fields", "[smt][layout]") {
  // bar = init(count 2); two arrives (events 1, 2 read it), a wait (event 3) reads its phase.
  events::ExprPool pool;
  smt::LayoutInput in;
  auto arrive = [&](events::EventId e) {
    return pool.make(ExprOp::MbArrive, {pool.readVal(e), pool.constant(1), pool.constant(0), pool.constant(2)});
  };
  in.writesByLoc = {{pool.constant(events::mbarrierState(0, 2, 0)), arrive(1), arrive(2)}};
  in.readLoc = {-1, 0, 0, 0};
  in.others = {pool.make(ExprOp::Eq, {pool.make(ExprOp::MbPhase, {pool.readVal(3)}), pool.constant(1)})};
  smt::ValueLayout l = smt::computeLayout(pool, in);
  REQUIRE(l.narrow);
  CHECK(l.locKind.at(0) == ValueKind::Mbarrier);
  CHECK(l.bits(ValueKind::Mbarrier) < 16);
  CHECK(l.plain < 8);
  for (int64_t s : {events::mbarrierState(0, 2, 0), events::mbarrierState(0, 1, 0), events::mbarrierState(0, 2, 1),
                    events::mbarrierState(0, 0, 0)}) {
    REQUIRE(l.encode(ValueKind::Mbarrier, s).has_value());
    CHECK(l.decode(ValueKind::Mbarrier, *l.encode(ValueKind::Mbarrier, s)) == s);
  }
  // mbarrier.init with a count in a register: count << 24 is the initial state word.
  events::ExprPool pool2;
  smt::LayoutInput in2;
  const events::ExprId count = pool2.readVal(1);
  in2.writesByLoc = {
      {pool2.constant(3)},
      {pool2.constant(0), pool2.make(ExprOp::Shl, {count, pool2.constant(24)}),
       pool2.make(ExprOp::MbArrive, {pool2.readVal(2), pool2.constant(1), pool2.constant(0), pool2.constant(3)})}};
  in2.readLoc = {-1, 0, 1};
  smt::ValueLayout l2 = smt::computeLayout(pool2, in2);
  REQUIRE(l2.narrow);
  CHECK(l2.locKind.at(1) == ValueKind::Mbarrier);
  CHECK(l2.locKind.at(0) == ValueKind::Plain);
}

TEST_CASE("value layout: 64 bits where no narrow form is exact", "[smt][layout]") {
  auto wide = [](const events::ExprPool& pool, const smt::LayoutInput& in) { return !computeLayout(pool, in).narrow; };
  {  // an ordered comparison of mbarrier states
    events::ExprPool pool;
    smt::LayoutInput in;
    const events::ExprId s = pool.readVal(1);
    in.writesByLoc = {{pool.constant(events::mbarrierState(0, 1, 0)),
                       pool.make(ExprOp::MbArrive, {s, pool.constant(1), pool.constant(0), pool.constant(1)})}};
    in.readLoc = {-1, 0};
    in.others = {pool.make(ExprOp::Lt, {s, pool.constant(5)})};
    CHECK(wide(pool, in));
  }
  {  // a logical shift right of a value that may be negative
    events::ExprPool pool;
    smt::LayoutInput in;
    in.writesByLoc = {{pool.constant(-3), pool.make(ExprOp::Shr, {pool.readVal(1), pool.constant(1)})}};
    in.readLoc = {-1, 0};
    CHECK(wide(pool, in));
  }
  {  // a value squared along a chain of reads: past 2^62
    events::ExprPool pool;
    smt::LayoutInput in;
    in.readLoc = {-1};
    in.writesByLoc = {{pool.constant(3)}};
    for (int k = 1; k <= 8; ++k) {
      const events::ExprId r = pool.readVal(k);
      in.writesByLoc[0].push_back(pool.make(ExprOp::Mul, {r, r}));
      in.readLoc.push_back(0);
    }
    CHECK(wide(pool, in));
  }
  {  // one location written both a state word and a plain integer
    events::ExprPool pool;
    smt::LayoutInput in;
    in.writesByLoc = {{pool.constant(0),
                       pool.make(ExprOp::MbTx, {pool.readVal(1), pool.constant(16), pool.constant(1)}),
                       pool.make(ExprOp::Add, {pool.readVal(1), pool.constant(1)})}};
    in.readLoc = {-1, 0};
    CHECK(wide(pool, in));
  }
}

TEST_CASE("narrow bit-vector encoding follows evalOp", "[smt][layout][values]") {
  smt::ValueLayout l;
  l.narrow = true;
  l.plain = 12;
  l.tx = 8;
  l.pending = 5;
  l.phase = 4;
  l.dropped = 3;
  std::mt19937_64 rng(11);
  auto small = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  };
  const std::vector<std::pair<ExprOp, int>> ops = {
      {ExprOp::Add, 2},    {ExprOp::Sub, 2}, {ExprOp::Mul, 2},  {ExprOp::Div, 2},      {ExprOp::Rem, 2},
      {ExprOp::And, 2},    {ExprOp::Or, 2},  {ExprOp::Xor, 2},  {ExprOp::Shl, 2},      {ExprOp::Eq, 2},
      {ExprOp::Ne, 2},     {ExprOp::Lt, 2},  {ExprOp::Le, 2},   {ExprOp::LNot, 1},     {ExprOp::LAnd, 2},
      {ExprOp::LOr, 2},    {ExprOp::Ite, 3}, {ExprOp::MbTx, 3}, {ExprOp::MbArrive, 4}, {ExprOp::MbArriveDrop, 4},
      {ExprOp::MbPhase, 1}};
  z3::context ctx;
  for (auto [op, arity] : ops) {
    const bool mb = op == ExprOp::MbArrive || op == ExprOp::MbTx || op == ExprOp::MbArriveDrop || op == ExprOp::MbPhase;
    for (int trial = 0; trial < 40; ++trial) {
      events::ExprPool pool;
      std::vector<int64_t> args;
      std::vector<events::ExprId> ids;
      for (int k = 0; k < arity; ++k) {
        if (mb && k == 0) {  // a state word with small fields
          args.push_back(events::mbarrierState(small(-20, 20), small(0, 6), small(0, 6), small(0, 2)));
        } else if (op == ExprOp::Shl && k == 1) {
          args.push_back(small(0, 4));
        } else if (mb) {
          args.push_back(small(-2, 3));
        } else {
          args.push_back(small(-40, 40));
        }
        ids.push_back(pool.readVal(k));
      }
      const events::ExprId e = pool.make(op, ids);
      l.nodeKind.assign(pool.size(), ValueKind::Plain);
      if (mb) l.nodeKind[static_cast<size_t>(ids[0])] = ValueKind::Mbarrier;
      if (mb && op != ExprOp::MbPhase) l.nodeKind[static_cast<size_t>(e)] = ValueKind::Mbarrier;
      const int64_t want = events::evalOp(op, args);
      const ValueKind rk = l.kindOf(pool, e);
      if (!l.encode(rk, want)) continue;  // outside this layout: the analysis would have chosen wider fields
      smt::ValueEncoder enc(
          ctx, pool,
          [&](events::EventId r) {
            const ValueKind k = l.kindOf(pool, ids[static_cast<size_t>(r)]);
            return ctx.bv_val(*l.encode(k, args[static_cast<size_t>(r)]), l.bits(k));
          },
          l);
      z3::expr s = enc.encode(e).simplify();
      REQUIRE(s.is_numeral());
      INFO("op " << static_cast<int>(op) << " trial " << trial);
      CHECK(l.decode(rk, s.get_numeral_uint64()) == want);
    }
  }
}
