// Expr: hash-consing, folding, the concrete operator semantics and the mbarrier state arithmetic.
#include <catch2/catch.hpp>

#include "events/Expr.hpp"

using namespace ptxmm::events;

namespace {
int64_t ev(ExprOp op, std::vector<int64_t> a) { return evalOp(op, a); }
}  // namespace

TEST_CASE("ExprPool hash-conses structurally equal nodes", "[events][expr]") {
  ExprPool p;
  ExprId a = p.readVal(3), b = p.readVal(3), c = p.readVal(4);
  CHECK(a == b);
  CHECK(a != c);
  ExprId one = p.constant(1);
  CHECK(one == p.constant(1));
  ExprId s1 = p.make(ExprOp::Add, {a, one});
  ExprId s2 = p.make(ExprOp::Add, {b, p.constant(1)});
  CHECK(s1 == s2);
  CHECK(s1 != p.make(ExprOp::Add, {one, a}));  // not commutativity-normalised
  CHECK(p.str(s1) == "(r@e3 + 1)");
  CHECK(p.str(p.make(ExprOp::MbPhase, {c})) == "MbPhase(r@e4)");
  CHECK_THROWS(p.make(ExprOp::Add, {a}));
}

TEST_CASE("ExprPool folds constant operations", "[events][expr]") {
  ExprPool p;
  ExprId x = p.make(ExprOp::Mul, {p.constant(6), p.constant(7)});
  REQUIRE(p.isConst(x));
  CHECK(p.node(x).value == 42);
  ExprId r = p.readVal(0);
  CHECK(p.make(ExprOp::Ite, {p.constant(0), r, p.constant(5)}) == p.constant(5));
  CHECK(p.make(ExprOp::Ite, {p.constant(2), r, p.constant(5)}) == r);
  std::vector<EventId> reads;
  p.collectReads(p.make(ExprOp::Add, {r, p.make(ExprOp::Sub, {p.readVal(7), r})}), reads);
  CHECK(reads.size() == 2);
}

TEST_CASE("evalOp integer semantics", "[events][expr]") {
  CHECK(ev(ExprOp::Add, {INT64_MAX, 1}) == INT64_MIN);  // wraps
  CHECK(ev(ExprOp::Sub, {3, 5}) == -2);
  CHECK(ev(ExprOp::Div, {7, 0}) == 0);
  CHECK(ev(ExprOp::Rem, {7, 0}) == 0);
  CHECK(ev(ExprOp::Div, {-7, 2}) == -3);
  CHECK(ev(ExprOp::Rem, {7, 3}) == 1);
  CHECK(ev(ExprOp::Shl, {1, 4}) == 16);
  CHECK(ev(ExprOp::Shr, {-1, 60}) == 15);  // logical
  CHECK(ev(ExprOp::Lt, {-1, 0}) == 1);     // signed
  CHECK(ev(ExprOp::Le, {2, 2}) == 1);
  CHECK(ev(ExprOp::LNot, {5}) == 0);
  CHECK(ev(ExprOp::LAnd, {5, 0}) == 0);
  CHECK(ev(ExprOp::LOr, {0, -3}) == 1);
  CHECK(ev(ExprOp::Ite, {0, 1, 2}) == 2);
  CHECK(ev(ExprOp::Xor, {6, 3}) == 5);
}

TEST_CASE("mbarrier state word layout", "[events][expr][mbarrier]") {
  int64_t s = mbarrierState(-5, 3, 7);
  CHECK(mbarrierTxCount(s) == -5);
  CHECK(mbarrierPending(s) == 3);
  CHECK(mbarrierPhase(s) == 7);
  CHECK(ev(ExprOp::MbPhase, {s}) == 7);
  CHECK(mbarrierState(0, 2, 0) == (int64_t{2} << 24));
  CHECK(mbarrierState(0, 0, 1) == (int64_t{1} << 44));
}

TEST_CASE("MbArrive completes the phase when pending and tx reach 0", "[events][expr][mbarrier]") {
  const int64_t init = mbarrierState(0, 2, 0);  // 2 expected arrivals
  int64_t s1 = ev(ExprOp::MbArrive, {init, 1, 0, 2});
  CHECK(mbarrierPending(s1) == 1);
  CHECK(mbarrierPhase(s1) == 0);
  int64_t s2 = ev(ExprOp::MbArrive, {s1, 1, 0, 2});
  CHECK(mbarrierPhase(s2) == 1);    // phase completed
  CHECK(mbarrierPending(s2) == 2);  // re-armed with the expected count
  CHECK(mbarrierTxCount(s2) == 0);
  // A second phase with 2 arrivals in one operation (count operand).
  int64_t s3 = ev(ExprOp::MbArrive, {s2, 2, 0, 2});
  CHECK(mbarrierPhase(s3) == 2);
}

TEST_CASE("MbTx and arrive.expect_tx: negative tx-count blocks completion", "[events][expr][mbarrier]") {
  const int64_t init = mbarrierState(0, 1, 0);
  // complete_tx before the expect: tx-count goes negative, the arrive cannot complete the phase.
  int64_t c = ev(ExprOp::MbTx, {init, -16, 1});
  CHECK(mbarrierTxCount(c) == -16);
  CHECK(mbarrierPhase(c) == 0);
  int64_t a = ev(ExprOp::MbArrive, {c, 1, 16, 1});  // arrive.expect_tx 16: tx back to 0, pending 0
  CHECK(mbarrierPhase(a) == 1);
  CHECK(mbarrierPending(a) == 1);
  // expect first: arrive.expect_tx leaves tx = 16 pending; the complete_tx completes the phase.
  int64_t e = ev(ExprOp::MbArrive, {init, 1, 16, 1});
  CHECK(mbarrierPhase(e) == 0);
  CHECK(mbarrierTxCount(e) == 16);
  CHECK(mbarrierPending(e) == 0);
  int64_t d = ev(ExprOp::MbTx, {e, -16, 1});
  CHECK(mbarrierPhase(d) == 1);
  CHECK(mbarrierTxCount(d) == 0);
  // Partial completion does not complete.
  CHECK(mbarrierPhase(ev(ExprOp::MbTx, {e, -8, 1})) == 0);
  // expect_tx (+n) on an incomplete phase keeps the phase.
  CHECK(mbarrierTxCount(ev(ExprOp::MbTx, {init, 32, 1})) == 32);
}

TEST_CASE("mbarrier state word: phase and dropped-arrival fields", "[events][expr][mbarrier]") {
  int64_t s = mbarrierState(-3, 5, 9, 4);
  CHECK(mbarrierTxCount(s) == -3);
  CHECK(mbarrierPending(s) == 5);
  CHECK(mbarrierPhase(s) == 9);
  CHECK(mbarrierDropped(s) == 4);
  CHECK(ev(ExprOp::MbPhase, {s}) == 9);  // the dropped count is not part of the phase
  CHECK(mbarrierState(0, 0, 0, 3) == static_cast<int64_t>(uint64_t{3} << 56));
  CHECK(mbarrierDropped(mbarrierState(0, 2, 0)) == 0);
  CHECK(mbarrierPhase(mbarrierState(0, 0, 4096 + 2)) == 2);  // 12-bit phase
  CHECK(mbarrierPhase(ev(ExprOp::MbArrive, {mbarrierState(0, 1, 4095), 1, 0, 1})) == 0);
  CHECK(mbarrierDropped(mbarrierState(0, 0, 0, 256 + 1)) == 1);  // 8-bit dropped count
}

TEST_CASE("MbArriveDrop lowers the expected count of the following phases", "[events][expr][mbarrier]") {
  const int64_t init = mbarrierState(0, 2, 0);  // 2 expected arrivals
  // Without a drop, two arrivals per phase.
  int64_t n1 = ev(ExprOp::MbArrive, {ev(ExprOp::MbArrive, {init, 1, 0, 2}), 1, 0, 2});
  CHECK(mbarrierPhase(n1) == 1);
  CHECK(mbarrierPending(n1) == 2);
  CHECK(mbarrierPhase(ev(ExprOp::MbArrive, {n1, 1, 0, 2})) == 1);
  // arrive_drop: an arrival in the current phase, and one expected arrival less from now on.
  int64_t d = ev(ExprOp::MbArriveDrop, {init, 1, 0, 2});
  CHECK(mbarrierPhase(d) == 0);
  CHECK(mbarrierPending(d) == 1);
  CHECK(mbarrierDropped(d) == 1);
  int64_t a1 = ev(ExprOp::MbArrive, {d, 1, 0, 2});
  CHECK(mbarrierPhase(a1) == 1);
  CHECK(mbarrierPending(a1) == 1);  // re-armed with 2 - 1
  CHECK(mbarrierDropped(a1) == 1);
  int64_t a2 = ev(ExprOp::MbArrive, {a1, 1, 0, 2});
  CHECK(mbarrierPhase(a2) == 2);  // the next phase completes after a single arrival
  CHECK(mbarrierPending(a2) == 1);
  // A drop that completes the phase re-arms with the lowered count; tx completion does too.
  int64_t c = ev(ExprOp::MbArriveDrop, {ev(ExprOp::MbArrive, {init, 1, 0, 2}), 1, 0, 2});
  CHECK(mbarrierPhase(c) == 1);
  CHECK(mbarrierPending(c) == 1);
  int64_t e = ev(ExprOp::MbArriveDrop, {mbarrierState(0, 3, 0), 1, 16, 3});  // arrive_drop.expect_tx 16
  CHECK(mbarrierTxCount(e) == 16);
  int64_t f = ev(ExprOp::MbTx, {ev(ExprOp::MbArrive, {e, 2, 0, 3}), -16, 3});
  CHECK(mbarrierPhase(f) == 1);
  CHECK(mbarrierPending(f) == 2);
  // a count of 2 drops 2
  int64_t g = ev(ExprOp::MbArriveDrop, {mbarrierState(0, 3, 0), 2, 0, 3});
  CHECK(mbarrierDropped(g) == 2);
  CHECK(mbarrierPhase(ev(ExprOp::MbArrive, {g, 1, 0, 3})) == 1);
  CHECK(mbarrierPending(ev(ExprOp::MbArrive, {g, 1, 0, 3})) == 1);
  ExprPool p;
  CHECK(p.str(p.make(ExprOp::MbArriveDrop, {p.readVal(1), p.constant(1), p.constant(0), p.constant(2)})) ==
        "MbArriveDrop(r@e1, 1, 0, 2)");
  CHECK_THROWS(p.make(ExprOp::MbArriveDrop, {p.readVal(1), p.constant(1)}));
}

TEST_CASE("evaluate follows evalOp over a DAG of reads", "[events][expr]") {
  ExprPool p;
  ExprId r0 = p.readVal(0), r1 = p.readVal(1);
  ExprId s = p.make(ExprOp::MbArrive, {r0, p.constant(1), r1, p.constant(1)});
  ExprId ph = p.make(ExprOp::MbPhase, {s});
  std::vector<int64_t> vals{mbarrierState(0, 1, 4), 0};
  CHECK(evaluate(p, ph, vals) == 5);
  vals[1] = 16;
  CHECK(evaluate(p, ph, vals) == 4);
  CHECK_THROWS(evaluate(p, p.readVal(9), vals));
}
