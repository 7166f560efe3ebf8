// Bit sets and square bit matrices over a small universe of events (n up to a few hundred):
// the concrete representation of cat sets and relations (cat::BitAlgebra) and of the static
// relations built by events/. Rows are packed into 64-bit words; all operations are word-parallel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace ptxmm {

/// A subset of {0, ..., n-1}. Binary operations require equal sizes.
class BitSet {
 public:
  /// The empty set over an empty universe.
  BitSet() = default;
  /// The empty subset of {0..n-1}.
  explicit BitSet(size_t n) : n_(n), w_((n + 63) / 64, 0) {}
  /// The full set {0..n-1}.
  static BitSet full(size_t n);

  /// Size of the universe (not the number of members: see count()).
  [[nodiscard]] size_t size() const { return n_; }
  /// Adds i.
  void set(size_t i) { w_[i >> 6] |= uint64_t{1} << (i & 63); }
  /// Removes i.
  void reset(size_t i) { w_[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  /// Whether i is a member.
  [[nodiscard]] bool test(size_t i) const { return (w_[i >> 6] >> (i & 63)) & 1; }
  /// Number of members.
  [[nodiscard]] size_t count() const;
  /// Whether there is no member.
  [[nodiscard]] bool none() const;
  /// Whether there is a member.
  [[nodiscard]] bool any() const { return !none(); }
  /// Members in increasing order.
  [[nodiscard]] std::vector<size_t> elements() const;
  /// Calls f(i) for every member i in increasing order.
  template <class F>
  void forEach(F&& f) const {
    for (size_t k = 0; k < w_.size(); ++k)
      for (uint64_t w = w_[k]; w; w &= w - 1) f(k * 64 + static_cast<size_t>(__builtin_ctzll(w)));
  }

  /// Union in place.
  BitSet& operator|=(const BitSet& o);
  /// Intersection in place.
  BitSet& operator&=(const BitSet& o);
  /// Difference in place (this \ o).
  BitSet& operator-=(const BitSet& o);
  /// Union.
  friend BitSet operator|(BitSet a, const BitSet& b) { return a |= b; }
  /// Intersection.
  friend BitSet operator&(BitSet a, const BitSet& b) { return a &= b; }
  /// Difference a \ b.
  friend BitSet operator-(BitSet a, const BitSet& b) { return a -= b; }
  /// Complement within {0..n-1}.
  [[nodiscard]] BitSet complement() const;
  /// Whether this ⊆ o.
  [[nodiscard]] bool subsetOf(const BitSet& o) const;
  /// Whether the two sets share a member.
  [[nodiscard]] bool intersects(const BitSet& o) const;
  /// Equality (same universe and members).
  bool operator==(const BitSet& o) const = default;
  /// A hash of the members.
  [[nodiscard]] size_t hash() const;

  /// Raw words (bit i of word k is member 64k+i; bits ≥ n are always 0).
  [[nodiscard]] const std::vector<uint64_t>& words() const { return w_; }
  /// Mutable raw words (callers must keep the bits ≥ n at 0).
  std::vector<uint64_t>& words() { return w_; }

 private:
  size_t n_ = 0;
  std::vector<uint64_t> w_;
};

/// A binary relation on {0..n-1}: n rows of packed bits; test(i, j) means (i, j) is in the relation.
class BitMatrix {
 public:
  /// The empty relation over an empty universe.
  BitMatrix() = default;
  /// The empty relation on {0..n-1}.
  explicit BitMatrix(size_t n) : n_(n), stride_((n + 63) / 64), d_(n * ((n + 63) / 64), 0) {}
  /// The identity relation on {0..n-1}.
  static BitMatrix identity(size_t n);
  /// The full relation {0..n-1}².
  static BitMatrix full(size_t n);
  /// The cartesian product a × b.
  static BitMatrix cross(const BitSet& a, const BitSet& b);
  /// The identity restricted to s ([s] in cat).
  static BitMatrix diag(const BitSet& s);

  /// Size of the universe.
  [[nodiscard]] size_t size() const { return n_; }
  /// Adds (i, j).
  void set(size_t i, size_t j) { d_[i * stride_ + (j >> 6)] |= uint64_t{1} << (j & 63); }
  /// Removes (i, j).
  void reset(size_t i, size_t j) { d_[i * stride_ + (j >> 6)] &= ~(uint64_t{1} << (j & 63)); }
  /// Whether (i, j) is in the relation.
  [[nodiscard]] bool test(size_t i, size_t j) const { return (d_[i * stride_ + (j >> 6)] >> (j & 63)) & 1; }
  /// Number of pairs.
  [[nodiscard]] size_t count() const;
  /// Whether the relation is empty.
  [[nodiscard]] bool none() const;
  /// Whether the relation has a pair.
  [[nodiscard]] bool any() const { return !none(); }
  /// Pairs in row-major order.
  [[nodiscard]] std::vector<std::pair<size_t, size_t>> pairs() const;
  /// Row i as a set (successors of i).
  [[nodiscard]] BitSet row(size_t i) const;
  /// Column j as a set (predecessors of j).
  [[nodiscard]] BitSet column(size_t j) const;
  /// Calls f(i, j) for every pair in row-major order.
  template <class F>
  void forEach(F&& f) const {
    for (size_t i = 0; i < n_; ++i)
      for (size_t k = 0; k < stride_; ++k)
        for (uint64_t w = d_[i * stride_ + k]; w; w &= w - 1) f(i, k * 64 + static_cast<size_t>(__builtin_ctzll(w)));
  }

  /// Union in place.
  BitMatrix& operator|=(const BitMatrix& o);
  /// Intersection in place.
  BitMatrix& operator&=(const BitMatrix& o);
  /// Difference in place (this \ o).
  BitMatrix& operator-=(const BitMatrix& o);
  /// Union.
  friend BitMatrix operator|(BitMatrix a, const BitMatrix& b) { return a |= b; }
  /// Intersection.
  friend BitMatrix operator&(BitMatrix a, const BitMatrix& b) { return a &= b; }
  /// Difference a \ b.
  friend BitMatrix operator-(BitMatrix a, const BitMatrix& b) { return a -= b; }
  /// Complement within {0..n-1}².
  [[nodiscard]] BitMatrix complement() const;
  /// Sequential composition this ; o = {(x,y) | ∃z. (x,z) ∈ this ∧ (z,y) ∈ o}.
  [[nodiscard]] BitMatrix compose(const BitMatrix& o) const;
  /// this^-1 ; o = {(y,z) | ∃x. (x,y) ∈ this ∧ (x,z) ∈ o}, one row operation per pair of this (fr = rf^-1 ; co
  /// without building rf^-1).
  [[nodiscard]] BitMatrix inverseCompose(const BitMatrix& o) const;
  /// Inverse {(y,x) | (x,y) ∈ this}.
  [[nodiscard]] BitMatrix transpose() const;
  /// Transitive closure r+ (word-parallel: by depth-first search when r is acyclic, else Warshall).
  [[nodiscard]] BitMatrix transitiveClosure() const;
  /// Reflexive-transitive closure r* (identity on all n elements added).
  [[nodiscard]] BitMatrix reflexiveTransitiveClosure() const;
  /// r ∪ id.
  [[nodiscard]] BitMatrix reflexive() const;
  /// Restriction to pairs whose source is in a and target in b ([a];r;[b]).
  [[nodiscard]] BitMatrix restrict(const BitSet& a, const BitSet& b) const;
  /// Whether the relation has no cycle (its transitive closure has no diagonal element).
  [[nodiscard]] bool acyclic() const;
  /// Whether there is no (i, i).
  [[nodiscard]] bool irreflexive() const;
  /// Sources {x | ∃y. (x,y)}.
  [[nodiscard]] BitSet domain() const;
  /// Targets {y | ∃x. (x,y)}.
  [[nodiscard]] BitSet range() const;
  /// Whether this ⊆ o.
  [[nodiscard]] bool subsetOf(const BitMatrix& o) const;
  /// Equality.
  bool operator==(const BitMatrix& o) const = default;
  /// A hash of the pairs.
  [[nodiscard]] size_t hash() const;

  /// Words per row.
  [[nodiscard]] size_t stride() const { return stride_; }
  /// Raw words of row i (stride() words).
  [[nodiscard]] const uint64_t* rowWords(size_t i) const { return d_.data() + i * stride_; }
  /// Mutable raw words of row i (callers must keep the bits ≥ n at 0).
  uint64_t* rowWords(size_t i) { return d_.data() + i * stride_; }

 private:
  size_t n_ = 0;
  size_t stride_ = 0;
  std::vector<uint64_t> d_;
};

}  // namespace ptxmm

/// std::hash support so sets and matrices can key unordered containers.
template <>
struct std::hash<ptxmm::BitSet> {
  size_t operator()(const ptxmm::BitSet& s) const { return s.hash(); }
};
/// std::hash support so sets and matrices can key unordered containers.
template <>
struct std::hash<ptxmm::BitMatrix> {
  size_t operator()(const ptxmm::BitMatrix& m) const { return m.hash(); }
};
