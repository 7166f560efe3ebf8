// BitSet / BitMatrix: word-parallel set and relation operations against naive references.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>

#include "BitTestSupport.hpp"
#include "support/BitMatrix.hpp"

using ptxmm::BitMatrix;
using ptxmm::BitSet;

namespace {

using ptxmm::bittesting::randomMatrix;

BitMatrix naiveCompose(const BitMatrix& a, const BitMatrix& b) {
  size_t n = a.size();
  BitMatrix m(n);
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < n; ++k)
      if (a.test(i, k))
        for (size_t j = 0; j < n; ++j)
          if (b.test(k, j)) m.set(i, j);
  return m;
}

BitMatrix naiveClosure(const BitMatrix& a) {
  BitMatrix m = a;
  for (;;) {
    BitMatrix next = m | naiveCompose(m, a);
    if (next == m) return m;
    m = next;
  }
}

}  // namespace

TEST_CASE("BitSet basic operations", "[bitmatrix]") {
  for (size_t n : {0u, 1u, 63u, 64u, 65u, 130u}) {
    BitSet a(n), b(n);
    for (size_t i = 0; i < n; i += 2) a.set(i);
    for (size_t i = 0; i < n; i += 3) b.set(i);
    BitSet u = a | b, x = a & b, d = a - b, c = a.complement();
    for (size_t i = 0; i < n; ++i) {
      CHECK(u.test(i) == (i % 2 == 0 || i % 3 == 0));
      CHECK(x.test(i) == (i % 6 == 0));
      CHECK(d.test(i) == (i % 2 == 0 && i % 3 != 0));
      CHECK(c.test(i) == (i % 2 != 0));
    }
    CHECK(BitSet::full(n).count() == n);
    CHECK(BitSet::full(n).complement().none());
    CHECK(a.count() == (n + 1) / 2);
    CHECK(x.subsetOf(a));
    if (n > 3) CHECK_FALSE(u.subsetOf(a));
    CHECK(a.elements().size() == a.count());
  }
}

TEST_CASE("BitMatrix compose, transpose, closure against naive versions", "[bitmatrix]") {
  std::mt19937 rng(42);
  for (size_t n : {1u, 5u, 64u, 70u, 129u}) {
    for (int percent : {2, 10, 40}) {
      BitMatrix a = randomMatrix(n, rng, percent), b = randomMatrix(n, rng, percent);
      CHECK(a.compose(b) == naiveCompose(a, b));
      CHECK(a.inverseCompose(b) == naiveCompose(a.transpose(), b));
      BitMatrix t = a.transpose();
      bool ok = true;
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) ok = ok && t.test(j, i) == a.test(i, j);
      CHECK(ok);
      BitMatrix cl = a.transitiveClosure();
      CHECK(cl == naiveClosure(a));
      CHECK(a.acyclic() == cl.irreflexive());
      CHECK(a.reflexiveTransitiveClosure() == (cl | BitMatrix::identity(n)));
      CHECK((a | b).subsetOf(a | b | BitMatrix::identity(n)));
      CHECK(a.complement().complement() == a);
      CHECK((a - b) == (a & b.complement()));
      CHECK(a.domain() == a.compose(BitMatrix::full(n)).domain());
      CHECK(a.range() == a.transpose().domain());
    }
  }
}

TEST_CASE("BitMatrix acyclicity, cross, diag, hashing", "[bitmatrix]") {
  BitMatrix chain(5);
  for (size_t i = 0; i + 1 < 5; ++i) chain.set(i, i + 1);
  CHECK(chain.acyclic());
  CHECK(chain.irreflexive());
  chain.set(4, 0);
  CHECK_FALSE(chain.acyclic());
  CHECK(chain.irreflexive());
  BitMatrix self(3);
  self.set(1, 1);
  CHECK_FALSE(self.acyclic());
  CHECK_FALSE(self.irreflexive());

  BitSet a(4), b(4);
  a.set(0);
  a.set(2);
  b.set(3);
  BitMatrix x = BitMatrix::cross(a, b);
  CHECK(x.count() == 2);
  CHECK(x.test(0, 3));
  CHECK(x.test(2, 3));
  CHECK(x.domain() == a);
  CHECK(x.range() == b);
  BitMatrix d = BitMatrix::diag(a);
  CHECK(d.count() == 2);
  CHECK(d.test(2, 2));
  CHECK(d.compose(x) == x);
  CHECK(x.restrict(a, b) == x);
  CHECK(x.restrict(b, b).none());

  BitMatrix y = x;
  CHECK(std::hash<BitMatrix>{}(y) == std::hash<BitMatrix>{}(x));
  y.set(1, 1);
  CHECK(y != x);
  CHECK(y.pairs().size() == 3);
  CHECK(BitMatrix::full(70).count() == 70u * 70u);
  CHECK(BitMatrix::full(70).complement().none());
}

TEST_CASE("BitMatrix closure of acyclic relations whose order is not the index order", "[bitmatrix]") {
  // An acyclic relation is closed by depth-first search, row by row from its successors' closed rows
  // (Warshall when a cycle is met): random DAGs over shuffled indices, sparse to dense, against the naive
  // closure; with one edge back from the last to the first, a cycle.
  std::mt19937 rng(11);
  for (size_t n : {2u, 63u, 64u, 130u, 250u, 300u}) {
    for (int percent : {1, 5, 30, 90}) {
      std::vector<size_t> perm(n);
      for (size_t i = 0; i < n; ++i) perm[i] = i;
      std::shuffle(perm.begin(), perm.end(), rng);
      BitMatrix dag(n);
      for (size_t a = 0; a < n; ++a)
        for (size_t b = a + 1; b < n; ++b)
          if (static_cast<int>(rng() % 100) < percent) dag.set(perm[a], perm[b]);
      BitMatrix cl = dag.transitiveClosure();
      CHECK(cl == naiveClosure(dag));
      CHECK(cl.irreflexive());
      CHECK(dag.acyclic());
      // A cycle of two events in the middle of the order, reached late by the search.
      BitMatrix mid = dag;
      mid.set(perm[n / 2 - 1], perm[n / 2]);
      mid.set(perm[n / 2], perm[n / 2 - 1]);
      CHECK(mid.acyclic() == naiveClosure(mid).irreflexive());
      CHECK_FALSE(mid.acyclic());
      BitMatrix cyc = dag;
      cyc.set(perm[0], perm[n - 1]);
      cyc.set(perm[n - 1], perm[0]);
      CHECK(cyc.transitiveClosure() == naiveClosure(cyc));
      CHECK(!cyc.acyclic());
    }
  }
}

TEST_CASE("BitMatrix compose and closure with events that lead nowhere", "[bitmatrix]") {
  // compose skips the middle events without a successor and the closure the pivots without one (a dense
  // relation such as po composed with a sparse one such as rf): same results as the naive versions.
  std::mt19937 rng(7);
  for (size_t n : {3u, 64u, 65u, 150u}) {
    BitMatrix dense = randomMatrix(n, rng, 60), sparse(n);
    for (size_t i = 0; i < n; i += 7) sparse.set(i, (i * 5 + 3) % n);
    CHECK(dense.compose(sparse) == naiveCompose(dense, sparse));
    CHECK(sparse.compose(dense) == naiveCompose(sparse, dense));
    CHECK(dense.compose(BitMatrix(n)).none());
    CHECK(sparse.transitiveClosure() == naiveClosure(sparse));
    CHECK((sparse | sparse.transpose()).transitiveClosure() == naiveClosure(sparse | sparse.transpose()));
  }
}
