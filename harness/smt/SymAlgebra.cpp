// Symbolic cat algebra: tri-state matrices over hash-consed z3 terms.
#include "smt/SymAlgebra.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <unordered_set>

#include "support/Budget.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::smt {

namespace {

// The first k ≥ from with row[k] != kFalse, or n. Most entries of the model's relations are kFalse: four
// entries are tested at a time (kFalse is 0).
size_t nextPossible(const Lit* row, size_t from, size_t n) {
  static_assert(kFalse == 0);
  size_t k = from;
  for (; k + 4 <= n; k += 4) {
    uint64_t lo = 0, hi = 0;
    std::memcpy(&lo, row + k, sizeof lo);
    std::memcpy(&hi, row + k + 2, sizeof hi);
    if ((lo | hi) != 0) break;
  }
  for (; k < n; ++k)
    if (row[k] != kFalse) return k;
  return n;
}

uint64_t pairKey(Lit a, Lit b) {
  if (a > b) std::swap(a, b);
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// TermTable

TermTable::TermTable(z3::context& ctx) : ctx_(ctx) {}

Lit TermTable::add(const z3::expr& e) {
  pollBudget("smt encoding");
  auto it = exprIndex_.find(e.id());
  if (it != exprIndex_.end()) return it->second;
  terms_.push_back(e);
  neg_.push_back(kFalse);
  Lit l = static_cast<Lit>(terms_.size() + 1);
  exprIndex_.emplace(e.id(), l);
  return l;
}

Lit TermTable::var(const std::string& name) {
  return add(ctx_.bool_const(fmt::format("{}!{}", name, fresh_++).c_str()));
}

Lit TermTable::fromExpr(const z3::expr& e) {
  if (e.is_true()) return kTrue;
  if (e.is_false()) return kFalse;
  return add(e);
}

z3::expr TermTable::expr(Lit l) const {
  if (l == kFalse) return ctx_.bool_val(false);
  if (l == kTrue) return ctx_.bool_val(true);
  return terms_[static_cast<size_t>(l - 2)];
}

Lit TermTable::mkNotTerm(Lit a) {
  Lit& c = neg_[static_cast<size_t>(a - 2)];
  if (c != kFalse) return c;
  Lit r = add(!terms_[static_cast<size_t>(a - 2)]);
  // add() may have reallocated neg_: index again.
  neg_[static_cast<size_t>(a - 2)] = r;
  if (r >= 2) neg_[static_cast<size_t>(r - 2)] = a;
  return r;
}

Lit TermTable::mkAndTerms(Lit a, Lit b) {
  if (a == b) return a;
  if (neg_[static_cast<size_t>(a - 2)] == b) return kFalse;
  uint64_t k = pairKey(a, b);
  auto it = andCache_.find(k);
  if (it != andCache_.end()) return it->second;
  Lit r = add(expr(a) && expr(b));
  andCache_.emplace(k, r);
  return r;
}

Lit TermTable::mkOrTerms(Lit a, Lit b) {
  if (a == b) return a;
  if (neg_[static_cast<size_t>(a - 2)] == b) return kTrue;
  uint64_t k = pairKey(a, b);
  auto it = orCache_.find(k);
  if (it != orCache_.end()) return it->second;
  Lit r = add(expr(a) || expr(b));
  orCache_.emplace(k, r);
  orArgs_.emplace(r, std::vector<Lit>{a, b});
  return r;
}

Lit TermTable::mkAndN(const std::vector<Lit>& ls) {
  std::vector<Lit> xs;
  for (Lit l : ls) {
    if (l == kFalse) return kFalse;
    if (l != kTrue) xs.push_back(l);
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  if (xs.empty()) return kTrue;
  if (xs.size() == 1) return xs[0];
  if (xs.size() == 2) return mkAnd(xs[0], xs[1]);
  z3::expr_vector v(ctx_);
  for (Lit l : xs) v.push_back(expr(l));
  return add(z3::mk_and(v));
}

Lit TermTable::mkOrN(const std::vector<Lit>& ls) {
  std::vector<Lit> xs;
  for (Lit l : ls) {
    if (l == kTrue) return kTrue;
    if (l != kFalse) xs.push_back(l);
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  if (xs.empty()) return kFalse;
  if (xs.size() == 1) return xs[0];
  if (xs.size() == 2) return mkOr(xs[0], xs[1]);
  uint64_t h = xs.size();
  for (Lit l : xs) h = (h ^ static_cast<uint32_t>(l)) * 0x100000001b3ULL;
  auto [first, last] = orNCache_.equal_range(h);
  for (auto it = first; it != last; ++it)
    if (orArgs_.at(it->second) == xs) return it->second;
  z3::expr_vector v(ctx_);
  for (Lit l : xs) v.push_back(expr(l));
  Lit r = add(z3::mk_or(v));
  if (orArgs_.emplace(r, std::move(xs)).second) orNCache_.emplace(h, r);
  return r;
}

bool TermTable::hasDisjunct(Lit whole, Lit part) const {
  std::vector<Lit> todo{whole};
  std::unordered_set<Lit> seen;
  while (!todo.empty()) {
    Lit l = todo.back();
    todo.pop_back();
    if (l == part || l == kTrue) return true;
    if (!seen.insert(l).second) continue;
    if (auto it = orArgs_.find(l); it != orArgs_.end()) todo.insert(todo.end(), it->second.begin(), it->second.end());
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// SymAlgebra

SymAlgebra::SymAlgebra(TermTable& terms, size_t n, std::string prefix, std::optional<Frame> frame)
    : n_(n), frame_(std::move(frame)), t_(terms), prefix_(std::move(prefix)) {
  // A model binds a few dozen relations of n×n literals: refuse at once a size that cannot fit.
  reserveBudget(32 * n * n * sizeof(Lit), "smt encoding (dense relations over " + std::to_string(n) + " events)");
}

std::vector<Lit> SymAlgebra::relStorage(Lit fill) const {
  pollBudget("smt encoding");
  reserveBudget(n_ * n_ * sizeof(Lit), "smt encoding");
  if (fill == kFalse) return std::vector<Lit>(n_ * n_);  // zeroed at once (kFalse is 0)
  return std::vector<Lit>(n_ * n_, fill);
}

SymRel SymAlgebra::masked(Rel r) const {
  if (!frame_) return r;
  for (size_t i = 0; i < n_; ++i)
    for (size_t j = 0; j < n_; ++j)
      if (!frame_->cooc.test(i, j)) r.m[i * n_ + j] = kFalse;
  return r;
}

void SymAlgebra::setSet(std::string name, SymSet s) { sets_[std::move(name)] = std::move(s); }
void SymAlgebra::setRel(std::string name, SymRel r) { rels_[std::move(name)] = std::move(r); }

SymSet SymAlgebra::constSet(const BitSet& s) const {
  SymSet r = emptySet();
  s.forEach([&](size_t i) { r.v[i] = kTrue; });
  return r;
}

SymRel SymAlgebra::constRel(const BitMatrix& m) const {
  SymRel r = emptyRel();
  m.forEach([&](size_t i, size_t j) {
    if (cooc(i, j)) r.m[i * n_ + j] = kTrue;
  });
  return r;
}

SymRel SymAlgebra::identity() const {
  SymRel r = emptyRel();
  for (size_t i = 0; i < n_; ++i) r.m[i * n_ + i] = kTrue;
  return r;
}

SymSet SymAlgebra::setUnion(const Set& a, const Set& b) {
  Set r = a;
  for (size_t i = 0; i < n_; ++i) r.v[i] = t_.mkOr(a.v[i], b.v[i]);
  return r;
}
SymSet SymAlgebra::setInter(const Set& a, const Set& b) {
  Set r = a;
  for (size_t i = 0; i < n_; ++i) r.v[i] = t_.mkAnd(a.v[i], b.v[i]);
  return r;
}
SymSet SymAlgebra::setDiff(const Set& a, const Set& b) {
  Set r = a;
  for (size_t i = 0; i < n_; ++i) r.v[i] = t_.mkAnd(a.v[i], t_.mkNot(b.v[i]));
  return r;
}
SymSet SymAlgebra::setComplement(const Set& a) {
  Set r = a;
  for (auto& x : r.v) x = t_.mkNot(x);
  return r;
}
// The binary operations visit only the possible entries of the operand that can change the result: most
// entries of the model's relations are kFalse.
SymRel SymAlgebra::relUnion(const Rel& a, const Rel& b) {
  Rel r = a;
  const size_t size = r.m.size();
  for (size_t i = nextPossible(b.m.data(), 0, size); i < size; i = nextPossible(b.m.data(), i + 1, size))
    r.m[i] = t_.mkOr(a.m[i], b.m[i]);
  return r;
}
SymRel SymAlgebra::relInter(const Rel& a, const Rel& b) {
  Rel r = emptyRel();
  const size_t size = r.m.size();
  for (size_t i = nextPossible(a.m.data(), 0, size); i < size; i = nextPossible(a.m.data(), i + 1, size))
    r.m[i] = t_.mkAnd(a.m[i], b.m[i]);
  return r;
}
SymRel SymAlgebra::relDiff(const Rel& a, const Rel& b) {
  Rel r = emptyRel();
  const size_t size = r.m.size();
  for (size_t i = nextPossible(a.m.data(), 0, size); i < size; i = nextPossible(a.m.data(), i + 1, size))
    r.m[i] = t_.mkAnd(a.m[i], t_.mkNot(b.m[i]));
  return r;
}
SymRel SymAlgebra::relComplement(const Rel& a) {
  Rel r = a;
  for (auto& x : r.m) x = t_.mkNot(x);
  return masked(std::move(r));
}

SymRel SymAlgebra::seq(const Rel& a, const Rel& b) {
  Rel r = emptyRel();
  SeqScratch& s = seqScratch_;
  // b's possible entries row by row (compressed rows), so the product only visits possible pairs.
  s.rowStart.resize(n_ + 1);
  s.cols.clear();
  for (size_t k = 0; k < n_; ++k) {
    s.rowStart[k] = s.cols.size();
    const Lit* bk = &b.m[k * n_];
    for (size_t j = nextPossible(bk, 0, n_); j < n_; j = nextPossible(bk, j + 1, n_))
      s.cols.push_back(static_cast<uint32_t>(j));
  }
  s.rowStart[n_] = s.cols.size();
  // Per column of the row being built: its disjuncts, whether one is true, whether it was reached.
  // Reset here rather than trusted from the last call, which an exception (a spent budget) may have cut short.
  s.acc.resize(n_);
  for (auto& ls : s.acc) ls.clear();
  s.isTrue.assign(n_, 0);
  s.seen.assign(n_, 0);
  s.touched.clear();
  for (size_t i = 0; i < n_; ++i) {
    pollBudget("smt encoding");
    const Lit* ai = &a.m[i * n_];
    for (size_t k = nextPossible(ai, 0, n_); k < n_; k = nextPossible(ai, k + 1, n_)) {
      const Lit aik = ai[k];
      for (size_t c = s.rowStart[k]; c < s.rowStart[k + 1]; ++c) {
        const uint32_t j = s.cols[c];
        if (!s.seen[j]) {
          s.seen[j] = 1;
          s.touched.push_back(j);
        }
        if (s.isTrue[j] || !cooc(i, j)) continue;
        Lit t = t_.mkAnd(aik, b.m[k * n_ + j]);
        // The middle event must execute too (the entry is read given that i and j do).
        if (frame_) t = t_.mkAnd(t, execUnless(k, i, j));
        if (t == kTrue) {
          s.isTrue[j] = 1;
        } else {
          s.acc[j].push_back(t);
        }
      }
    }
    // In column order, as the terms were always built.
    std::sort(s.touched.begin(), s.touched.end());
    for (uint32_t j : s.touched) {
      std::vector<Lit>& ls = s.acc[j];
      r.m[i * n_ + j] = s.isTrue[j] ? kTrue : ls.size() == 1 ? ls[0] : t_.mkOrN(ls);
      ls.clear();
      s.isTrue[j] = 0;
      s.seen[j] = 0;
    }
    s.touched.clear();
  }
  return r;
}

SymRel SymAlgebra::cross(const Set& a, const Set& b) {
  Rel r = emptyRel();
  for (size_t i = 0; i < n_; ++i) {
    if (a.v[i] == kFalse) continue;
    for (size_t j = 0; j < n_; ++j)
      if (cooc(i, j)) r.m[i * n_ + j] = t_.mkAnd(a.v[i], b.v[j]);
  }
  return r;
}

SymRel SymAlgebra::diag(const Set& a) {
  Rel r = emptyRel();
  for (size_t i = 0; i < n_; ++i) r.m[i * n_ + i] = a.v[i];
  return r;
}

SymRel SymAlgebra::inverse(const Rel& a) {
  Rel r = emptyRel();
  for (size_t i = 0; i < n_; ++i)
    for (size_t j = 0; j < n_; ++j) r.m[j * n_ + i] = a.m[i * n_ + j];
  return r;
}

BitMatrix SymAlgebra::mayMatrix(const Rel& a) const {
  BitMatrix m(n_);
  for (size_t i = 0; i < n_; ++i)
    for (size_t j = 0; j < n_; ++j)
      if (a.m[i * n_ + j] != kFalse) m.set(i, j);
  return m;
}

SymRel SymAlgebra::plus(const Rel& a) {
  bool allConst = std::all_of(a.m.begin(), a.m.end(), [](Lit l) { return l == kFalse || l == kTrue; });
  if (allConst && frame_) {
    // A constant closure only if every possible middle event of a path executes whenever its ends do.
    BitMatrix may = mayMatrix(a);
    BitSet middles = may.domain() & may.range();
    middles.forEach([&](size_t k) {
      if (exec(k) != kTrue) allConst = false;
    });
  }
  if (allConst) return constRel(mayMatrix(a).transitiveClosure());
  // Warshall: after the step of pivot k, r(i, j) covers the paths whose middle events are among the pivots
  // done so far. Each step adds at most one conjunction and one disjunction per entry, so the terms stay
  // linear in the number of (i, k, j) triples with possible edges, where iterated squaring (r ∪ r;r, log n times)
  // builds a wide disjunction per entry and step (measured on the CLC seeds: 100× fewer terms, 10× faster solving).
  Rel r = a;
  auto possible = [](const Rel& x) {
    return static_cast<size_t>(std::count_if(x.m.begin(), x.m.end(), [](Lit l) { return l != kFalse; }));
  };
  ClosureSize size{possible(a), 0, t_.numTerms()};
  std::vector<size_t> rows, cols;
  // Pivots from the last event to the first: events are numbered init writes first, then thread by
  // thread in program order, and eliminating the latest events first builds far fewer terms (measured:
  // the hb closure of ring-K8-N17 214k -> 28k terms, of the whole suite 18.8k -> 16.5k;
  // docs/performance.md "Scaling to real kernels").
  for (size_t k = n_; k-- > 0;) {
    pollBudget("smt encoding");
    rows.clear();
    cols.clear();
    for (size_t i = 0; i < n_; ++i)
      if (i != k && r.m[i * n_ + k] != kFalse) rows.push_back(i);
    for (size_t j = 0; j < n_; ++j)
      if (j != k && r.m[k * n_ + j] != kFalse) cols.push_back(j);
    for (size_t i : rows) {
      const Lit ik = r.m[i * n_ + k];
      // The transitive relations whose entry (i, k) this one still is.
      const SymRel* same[2] = {nullptr, nullptr};
      size_t nsame = 0;
      for (const SymRel& tr : transitive_)
        if (nsame < 2 && tr.m[i * n_ + k] == ik) same[nsame++] = &tr;
      for (size_t j : cols) {
        Lit& ij = r.m[i * n_ + j];
        if (ij == kTrue || !cooc(i, j)) continue;
        // i -> k -> j through entries of a transitive relation that (i, j) still is: implied by (i, j).
        bool implied = false;
        for (size_t q = 0; q < nsame && !implied && i != j; ++q)
          implied = same[q]->m[k * n_ + j] == r.m[k * n_ + j] && same[q]->m[i * n_ + j] == ij;
        if (implied) continue;
        Lit t = t_.mkAnd(ik, r.m[k * n_ + j]);
        // The middle event must execute too (the entry is read given that i and j do).
        if (frame_) t = t_.mkAnd(t, execUnless(k, i, j));
        ij = t_.mkOr(ij, t);
      }
    }
  }
  size.entriesOut = possible(r);
  size.terms = t_.numTerms() - size.terms;
  closureSizes_.push_back(size);
  return r;
}

SymRel SymAlgebra::star(const Rel& a) { return relUnion(plus(a), identity()); }

SymRel SymAlgebra::opt(const Rel& a) { return relUnion(a, identity()); }

SymSet SymAlgebra::domain(const Rel& a) {
  Set r = emptySet();
  std::vector<Lit> row(n_);
  for (size_t i = 0; i < n_; ++i) {
    for (size_t j = 0; j < n_; ++j) row[j] = t_.mkAnd(a.m[i * n_ + j], execUnless(j, i, i));
    r.v[i] = t_.mkOrN(row);
  }
  return r;
}

SymSet SymAlgebra::range(const Rel& a) {
  Set r = emptySet();
  std::vector<Lit> col(n_);
  for (size_t j = 0; j < n_; ++j) {
    for (size_t i = 0; i < n_; ++i) col[i] = t_.mkAnd(a.m[i * n_ + j], execUnless(i, j, j));
    r.v[j] = t_.mkOrN(col);
  }
  return r;
}

SymBool SymAlgebra::acyclic(const Rel& a) {
  BitMatrix may = mayMatrix(a);
  BitMatrix mayPlus = may.transitiveClosure();
  // The relation is kept (acyclicRelation) also when no cycle is possible at all.
  if (mayPlus.irreflexive()) {
    acyclicStore_.push_back(a);
    return {kTrue, static_cast<int>(acyclicStore_.size() - 1)};
  }
  // Edges that exist in every execution: constant entries between events that always execute.
  BitMatrix must(n_);
  for (size_t i = 0; i < n_; ++i)
    for (size_t j = 0; j < n_; ++j)
      if (a.m[i * n_ + j] == kTrue && exec(i) == kTrue && exec(j) == kTrue) must.set(i, j);
  if (!must.acyclic()) return {kFalse, -1};
  // Clock constraints only for edges inside a non-trivial strongly connected component of the
  // possible edges: other edges cannot lie on a cycle.
  std::vector<int> comp(n_, -1);
  std::vector<size_t> compSize;
  for (size_t i = 0; i < n_; ++i) {
    if (comp[i] >= 0 || !mayPlus.test(i, i)) continue;
    int c = static_cast<int>(compSize.size());
    compSize.push_back(0);
    for (size_t j = 0; j < n_; ++j)
      if (j == i || (mayPlus.test(i, j) && mayPlus.test(j, i))) comp[j] = c, ++compSize.back();
  }
  int id = clocks_++;
  // Bit-vector clocks as wide as the largest component needs (a topological numbering of its events fits):
  // on the pipelines Z3 decides them faster than integer clocks, the same elsewhere (docs/performance.md).
  const size_t largest = compSize.empty() ? 1 : *std::max_element(compSize.begin(), compSize.end());
  unsigned width = 1;
  while ((size_t{1} << width) < largest) ++width;
  std::vector<std::optional<z3::expr>> clock(n_);
  auto clk = [&](size_t i) -> z3::expr {
    if (!clock[i]) clock[i] = t_.ctx().bv_const(fmt::format("{}clk{}_e{}", prefix_, id, i).c_str(), width);
    return *clock[i];
  };
  std::vector<Lit> clauses;
  for (size_t i = 0; i < n_; ++i) {
    if (comp[i] < 0) continue;
    for (size_t j = 0; j < n_; ++j) {
      Lit e = a.m[i * n_ + j];
      if (e == kFalse || comp[j] != comp[i]) continue;
      e = t_.mkAnd(e, t_.mkAnd(exec(i), exec(j)));
      if (i == j) {
        clauses.push_back(t_.mkNot(e));
      } else {
        clauses.push_back(t_.mkImplies(e, t_.fromExpr(z3::ult(clk(i), clk(j)))));
      }
    }
  }
  acyclicStore_.push_back(a);
  return {t_.mkAndN(clauses), static_cast<int>(acyclicStore_.size() - 1)};
}

SymBool SymAlgebra::irreflexive(const Rel& a) {
  std::vector<Lit> xs;
  for (size_t i = 0; i < n_; ++i) xs.push_back(t_.mkAnd(a.m[i * n_ + i], exec(i)));
  return {t_.mkNot(t_.mkOrN(xs)), -1};
}

SymBool SymAlgebra::isEmptySet(const Set& a) {
  if (!frame_) return {t_.mkNot(t_.mkOrN(a.v)), -1};
  std::vector<Lit> xs;
  for (size_t i = 0; i < n_; ++i) xs.push_back(t_.mkAnd(a.v[i], exec(i)));
  return {t_.mkNot(t_.mkOrN(xs)), -1};
}

SymBool SymAlgebra::isEmptyRel(const Rel& a) {
  if (!frame_) return {t_.mkNot(t_.mkOrN(a.m)), -1};
  std::vector<Lit> xs;
  for (size_t i = 0; i < n_; ++i)
    for (size_t j = 0; j < n_; ++j)
      if (a.m[i * n_ + j] != kFalse) xs.push_back(t_.mkAnd(a.m[i * n_ + j], t_.mkAnd(exec(i), exec(j))));
  return {t_.mkNot(t_.mkOrN(xs)), -1};
}

SymBool SymAlgebra::notB(const Bool& b) {
  if (b.acyclicOf >= 0 && b.lit != kTrue && b.lit != kFalse) {
    // The clock encoding is existential: its negation would not mean "has a cycle".
    Rel r = acyclicStore_[static_cast<size_t>(b.acyclicOf)];
    return {t_.mkNot(irreflexive(plus(r)).lit), -1};
  }
  return {t_.mkNot(b.lit), -1};
}

std::optional<SymSet> SymAlgebra::builtinSet(std::string_view name) const {
  auto it = sets_.find(std::string(name));
  if (it == sets_.end()) return std::nullopt;
  return it->second;
}

std::optional<SymRel> SymAlgebra::builtinRel(std::string_view name) const {
  auto it = rels_.find(std::string(name));
  if (it == rels_.end()) return std::nullopt;
  return it->second;
}

std::vector<size_t> SymAlgebra::setElements(const Set& s) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < n_; ++i) {
    if (s.v[i] == kFalse) continue;
    if (s.v[i] != kTrue)
      throw DiagnosticError(SourceLoc{},
                            "the members of a set that depends on the execution cannot be enumerated "
                            "by the smt engine (use --engine enum)");
    out.push_back(i);
  }
  return out;
}

std::vector<std::pair<size_t, size_t>> SymAlgebra::relPairs(const Rel& r) const {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < n_; ++i)
    for (size_t j = 0; j < n_; ++j) {
      Lit l = r.m[i * n_ + j];
      if (l == kFalse) continue;
      if (l != kTrue)
        throw DiagnosticError(SourceLoc{},
                              "the pairs of a relation that depends on the execution cannot be "
                              "enumerated by the smt engine (use --engine enum)");
      out.emplace_back(i, j);
    }
  return out;
}

SymSet SymAlgebra::singletonSet(size_t e) const {
  SymSet r = emptySet();
  r.v[e] = kTrue;
  return r;
}

SymRel SymAlgebra::singletonRel(size_t a, size_t b) const {
  SymRel r = emptyRel();
  if (cooc(a, b)) r.m[a * n_ + b] = kTrue;
  return r;
}

std::vector<SymSet> SymAlgebra::classesLoc(const Set& s) {
  // The classes of the (static) loc relation, each intersected with S; those S cannot meet are left out.
  auto loc = rels_.find("loc");
  std::vector<SymSet> out;
  std::vector<char> done(n_, 0);
  for (size_t i = 0; i < n_; ++i) {
    if (done[i] || s.v[i] == kFalse) continue;
    SymSet cls = emptySet();
    for (size_t j = 0; j < n_; ++j) {
      bool same = j == i || (loc != rels_.end() && loc->second.m[i * n_ + j] != kFalse);
      if (!same || done[j]) continue;
      done[j] = 1;
      cls.v[j] = s.v[j];
    }
    out.push_back(std::move(cls));
  }
  return out;
}

std::vector<SymBool> SymAlgebra::choiceSelectors(size_t k) {
  std::vector<SymBool> out;
  Lit prefix = kTrue;  // b_1 ∧ … ∧ b_{j-1}
  for (size_t j = 0; j < k; ++j) {
    if (j + 1 == k) {
      out.push_back({prefix, -1});
      break;
    }
    Lit b = t_.var(prefix_ + "with_choice");
    out.push_back({t_.mkAnd(prefix, t_.mkNot(b)), -1});
    prefix = t_.mkAnd(prefix, b);
  }
  return out;
}

std::optional<bool> SymAlgebra::knownBool(const Bool& b) const {
  if (b.lit == kTrue) return true;
  if (b.lit == kFalse) return false;
  return std::nullopt;
}

}  // namespace ptxmm::smt
