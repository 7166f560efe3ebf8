#include "support/BitMatrix.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <type_traits>

namespace ptxmm {

namespace {

/// Mask of the valid bits of the last word of an n-bit row.
uint64_t lastMask(size_t n) { return (n & 63) ? ((uint64_t{1} << (n & 63)) - 1) : ~uint64_t{0}; }

size_t mix(size_t h, uint64_t w) {
  return h ^ (std::hash<uint64_t>{}(w) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

}  // namespace

BitSet BitSet::full(size_t n) {
  BitSet s(n);
  for (auto& w : s.w_) w = ~uint64_t{0};
  if (!s.w_.empty()) s.w_.back() &= lastMask(n);
  return s;
}

size_t BitSet::count() const {
  size_t c = 0;
  for (uint64_t w : w_) c += static_cast<size_t>(std::popcount(w));
  return c;
}

bool BitSet::none() const {
  for (uint64_t w : w_)
    if (w) return false;
  return true;
}

std::vector<size_t> BitSet::elements() const {
  std::vector<size_t> out;
  forEach([&](size_t i) { out.push_back(i); });
  return out;
}

BitSet& BitSet::operator|=(const BitSet& o) {
  for (size_t k = 0; k < w_.size(); ++k) w_[k] |= o.w_[k];
  return *this;
}

BitSet& BitSet::operator&=(const BitSet& o) {
  for (size_t k = 0; k < w_.size(); ++k) w_[k] &= o.w_[k];
  return *this;
}

BitSet& BitSet::operator-=(const BitSet& o) {
  for (size_t k = 0; k < w_.size(); ++k) w_[k] &= ~o.w_[k];
  return *this;
}

BitSet BitSet::complement() const {
  BitSet s(n_);
  for (size_t k = 0; k < w_.size(); ++k) s.w_[k] = ~w_[k];
  if (!s.w_.empty()) s.w_.back() &= lastMask(n_);
  return s;
}

bool BitSet::subsetOf(const BitSet& o) const {
  for (size_t k = 0; k < w_.size(); ++k)
    if (w_[k] & ~o.w_[k]) return false;
  return true;
}

bool BitSet::intersects(const BitSet& o) const {
  for (size_t k = 0; k < w_.size(); ++k)
    if (w_[k] & o.w_[k]) return true;
  return false;
}

size_t BitSet::hash() const {
  size_t h = n_;
  for (uint64_t w : w_) h = mix(h, w);
  return h;
}

BitMatrix BitMatrix::identity(size_t n) {
  BitMatrix m(n);
  for (size_t i = 0; i < n; ++i) m.set(i, i);
  return m;
}

BitMatrix BitMatrix::full(size_t n) {
  BitMatrix m(n);
  if (n == 0) return m;
  uint64_t last = lastMask(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t* r = m.rowWords(i);
    for (size_t k = 0; k < m.stride_; ++k) r[k] = ~uint64_t{0};
    r[m.stride_ - 1] = last;
  }
  return m;
}

BitMatrix BitMatrix::cross(const BitSet& a, const BitSet& b) {
  BitMatrix m(a.size());
  const auto& bw = b.words();
  a.forEach([&](size_t i) {
    uint64_t* r = m.rowWords(i);
    for (size_t k = 0; k < m.stride_; ++k) r[k] = bw[k];
  });
  return m;
}

BitMatrix BitMatrix::diag(const BitSet& s) {
  BitMatrix m(s.size());
  s.forEach([&](size_t i) { m.set(i, i); });
  return m;
}

size_t BitMatrix::count() const {
  size_t c = 0;
  for (uint64_t w : d_) c += static_cast<size_t>(std::popcount(w));
  return c;
}

bool BitMatrix::none() const {
  // OR-reduced four words at a time (the loop vectorises): emptiness is asked of every operand of the cat
  // interpreter's unions, intersections and sequences (cat::HasEmptyForGood).
  const uint64_t* p = d_.data();
  const size_t n = d_.size();
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    if ((p[i] | p[i + 1] | p[i + 2] | p[i + 3]) != 0) return false;
  for (; i < n; ++i)
    if (p[i] != 0) return false;
  return true;
}

std::vector<std::pair<size_t, size_t>> BitMatrix::pairs() const {
  std::vector<std::pair<size_t, size_t>> out;
  forEach([&](size_t i, size_t j) { out.emplace_back(i, j); });
  return out;
}

BitSet BitMatrix::row(size_t i) const {
  BitSet s(n_);
  auto& w = s.words();
  for (size_t k = 0; k < stride_; ++k) w[k] = d_[i * stride_ + k];
  return s;
}

BitSet BitMatrix::column(size_t j) const {
  BitSet s(n_);
  for (size_t i = 0; i < n_; ++i)
    if (test(i, j)) s.set(i);
  return s;
}

BitMatrix& BitMatrix::operator|=(const BitMatrix& o) {
  for (size_t k = 0; k < d_.size(); ++k) d_[k] |= o.d_[k];
  return *this;
}

BitMatrix& BitMatrix::operator&=(const BitMatrix& o) {
  for (size_t k = 0; k < d_.size(); ++k) d_[k] &= o.d_[k];
  return *this;
}

BitMatrix& BitMatrix::operator-=(const BitMatrix& o) {
  for (size_t k = 0; k < d_.size(); ++k) d_[k] &= ~o.d_[k];
  return *this;
}

BitMatrix BitMatrix::complement() const {
  BitMatrix m(n_);
  if (n_ == 0) return m;
  uint64_t last = lastMask(n_);
  for (size_t i = 0; i < n_; ++i) {
    const uint64_t* a = rowWords(i);
    uint64_t* r = m.rowWords(i);
    for (size_t k = 0; k < stride_; ++k) r[k] = ~a[k];
    r[stride_ - 1] &= last;
  }
  return m;
}

namespace {

// The rows of a ; b into m (n events, `stride` words per row, `mid`: the events with a successor in b).
// S > 0: the row length fixed at compile time (unrolled); S == 0: `stride`.
template <size_t S>
void composeRows(uint64_t* m, const uint64_t* a, const uint64_t* b, const uint64_t* mid, size_t n, size_t stride) {
  const size_t w = S > 0 ? S : stride;
  for (size_t i = 0; i < n; ++i) {
    uint64_t* r = m + i * w;
    const uint64_t* ai = a + i * w;
    for (size_t k = 0; k < w; ++k)
      for (uint64_t bits = ai[k] & mid[k]; bits; bits &= bits - 1) {
        const uint64_t* bj = b + (k * 64 + static_cast<size_t>(__builtin_ctzll(bits))) * w;
        for (size_t q = 0; q < w; ++q) r[q] |= bj[q];
      }
  }
}

// Warshall's closure of m in place; S as for composeRows.
template <size_t S>
void closeRows(uint64_t* m, size_t n, size_t stride) {
  const size_t w = S > 0 ? S : stride;
  for (size_t k = 0; k < n; ++k) {
    const size_t kw = k >> 6;
    const uint64_t kb = uint64_t{1} << (k & 63);
    const uint64_t* rk = m + k * w;
    bool leads = false;
    for (size_t q = 0; q < w; ++q) leads = leads || rk[q] != 0;
    if (!leads) continue;  // k leads nowhere
    for (size_t i = 0; i < n; ++i) {
      uint64_t* ri = m + i * w;
      if (ri[kw] & kb)
        for (size_t q = 0; q < w; ++q) ri[q] |= rk[q];
    }
  }
}

// The closure of m in place by depth-first search, each row closed once its successors' are: it gets their
// closed rows, skipping a successor already reached through another (whose closed row is then included).
// False, m then between the relation and its closure, when a cycle is met. S as for composeRows.
template <size_t S>
bool closeAcyclicRows(uint64_t* m, size_t n, size_t stride) {
  const size_t w = S > 0 ? S : stride;
  struct Frame {
    size_t event, word;
    uint64_t bits;  // successors of `event` in word `word` not visited yet
  };
  std::vector<uint8_t> state(n, 0);      // 0 not visited, 1 on the stack, 2 closed
  std::vector<uint64_t> reached(n * w);  // per stack depth: the closed rows of the successors so far
  std::vector<Frame> stack;
  for (size_t root = 0; root < n; ++root) {
    if (state[root] != 0) continue;
    state[root] = 1;
    stack.push_back({root, 0, m[root * w]});
    for (size_t q = 0; q < w; ++q) reached[q] = 0;
    while (!stack.empty()) {
      Frame& f = stack.back();
      uint64_t* acc = reached.data() + (stack.size() - 1) * w;
      if (f.bits == 0) {
        if (++f.word < w) {
          f.bits = m[f.event * w + f.word];
          continue;
        }
        uint64_t* row = m + f.event * w;
        for (size_t q = 0; q < w; ++q) row[q] |= acc[q];
        state[f.event] = 2;
        stack.pop_back();
        if (!stack.empty())
          for (size_t q = 0; q < w; ++q) (acc - w)[q] |= row[q];
        continue;
      }
      const size_t j = f.word * 64 + static_cast<size_t>(__builtin_ctzll(f.bits));
      f.bits &= f.bits - 1;
      if ((acc[j >> 6] >> (j & 63)) & 1) continue;  // within an earlier successor's closed row
      if (state[j] == 2) {
        const uint64_t* rj = m + j * w;
        for (size_t q = 0; q < w; ++q) acc[q] |= rj[q];
      } else if (state[j] == 1) {
        return false;  // a cycle
      } else {
        state[j] = 1;
        stack.push_back({j, 0, m[j * w]});
        for (size_t q = 0; q < w; ++q) acc[w + q] = 0;
      }
    }
  }
  return true;
}

// Calls f with std::integral_constant<size_t, S>: S the row length `stride` for rows of up to 256 events (the
// litmus tests and pipelines), whose loops the compiler then unrolls; 0 (any length) beyond.
template <class F>
auto byRowLength(size_t stride, F&& f) {
  switch (stride) {
    case 1: return f(std::integral_constant<size_t, 1>{});
    case 2: return f(std::integral_constant<size_t, 2>{});
    case 3: return f(std::integral_constant<size_t, 3>{});
    case 4: return f(std::integral_constant<size_t, 4>{});
    default: return f(std::integral_constant<size_t, 0>{});
  }
}

}  // namespace

BitMatrix BitMatrix::compose(const BitMatrix& o) const {
  BitMatrix m(n_);
  // The middle events with a successor in o: the others add nothing (skipped word-parallel, which makes
  // a dense relation composed with a sparse one cheap). On the stack up to 1,024 events (no allocation
  // per call: compose is the enum engine's most frequent operation).
  std::array<uint64_t, 16> midSmall{};
  std::vector<uint64_t> midLarge(stride_ > midSmall.size() ? stride_ : 0, 0);
  uint64_t* mid = stride_ > midSmall.size() ? midLarge.data() : midSmall.data();
  for (size_t k = 0; k < n_; ++k) {
    const uint64_t* b = o.rowWords(k);
    for (size_t q = 0; q < stride_; ++q)
      if (b[q]) {
        mid[k >> 6] |= uint64_t{1} << (k & 63);
        break;
      }
  }
  byRowLength(stride_, [&](auto len) { composeRows<len()>(m.d_.data(), d_.data(), o.d_.data(), mid, n_, stride_); });
  return m;
}

BitMatrix BitMatrix::inverseCompose(const BitMatrix& o) const {
  BitMatrix m(n_);
  for (size_t x = 0; x < n_; ++x) {
    const uint64_t* b = o.rowWords(x);
    if (std::none_of(b, b + stride_, [](uint64_t w) { return w != 0; })) continue;  // adds nothing
    const uint64_t* a = rowWords(x);
    for (size_t k = 0; k < stride_; ++k)
      for (uint64_t w = a[k]; w; w &= w - 1) {
        uint64_t* r = m.rowWords(k * 64 + static_cast<size_t>(__builtin_ctzll(w)));
        for (size_t q = 0; q < stride_; ++q) r[q] |= b[q];
      }
  }
  return m;
}

BitMatrix BitMatrix::transpose() const {
  BitMatrix m(n_);
  forEach([&](size_t i, size_t j) { m.set(j, i); });
  return m;
}

BitMatrix BitMatrix::transitiveClosure() const {
  BitMatrix m = *this;
  // Acyclic (the causality orders): by depth-first search. Otherwise Warshall: for every intermediate k,
  // every row i that reaches k gets row k.
  byRowLength(stride_, [&](auto len) {
    if (!closeAcyclicRows<len()>(m.d_.data(), n_, stride_)) closeRows<len()>(m.d_.data(), n_, stride_);
  });
  return m;
}

BitMatrix BitMatrix::reflexiveTransitiveClosure() const { return transitiveClosure().reflexive(); }

BitMatrix BitMatrix::reflexive() const {
  BitMatrix m = *this;
  for (size_t i = 0; i < n_; ++i) m.set(i, i);
  return m;
}

BitMatrix BitMatrix::restrict(const BitSet& a, const BitSet& b) const {
  BitMatrix m(n_);
  const auto& bw = b.words();
  a.forEach([&](size_t i) {
    const uint64_t* s = rowWords(i);
    uint64_t* r = m.rowWords(i);
    for (size_t k = 0; k < stride_; ++k) r[k] = s[k] & bw[k];
  });
  return m;
}

bool BitMatrix::acyclic() const {
  // Depth-first search; a successor already finished is masked out a word at a time (a dense relation, such
  // as a transitive order, is then checked in about one pass over its rows), and one on the stack closes a
  // cycle.
  struct Frame {
    size_t event, word;
    uint64_t bits;  // successors of `event` in word `word` not visited yet
  };
  std::vector<uint64_t> done(stride_, 0), onStack(stride_, 0);
  std::vector<Frame> stack;
  auto bit = [](size_t i) { return uint64_t{1} << (i & 63); };
  // The successors of `event` in word k not finished; false when one of them is on the stack.
  auto load = [&](Frame& f) {
    f.bits = d_[f.event * stride_ + f.word] & ~done[f.word];
    return (f.bits & onStack[f.word]) == 0;
  };
  for (size_t root = 0; root < n_; ++root) {
    if (done[root >> 6] & bit(root)) continue;
    onStack[root >> 6] |= bit(root);
    stack.push_back({root, 0, 0});
    if (!load(stack.back())) return false;
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.bits == 0) {
        if (++f.word < stride_) {
          if (!load(f)) return false;
          continue;
        }
        onStack[f.event >> 6] &= ~bit(f.event);
        done[f.event >> 6] |= bit(f.event);
        stack.pop_back();
        continue;
      }
      const size_t j = f.word * 64 + static_cast<size_t>(__builtin_ctzll(f.bits));
      f.bits &= f.bits - 1;
      if (done[j >> 6] & bit(j)) continue;  // finished below an earlier successor
      onStack[j >> 6] |= bit(j);
      stack.push_back({j, 0, 0});
      if (!load(stack.back())) return false;
    }
  }
  return true;
}

bool BitMatrix::irreflexive() const {
  for (size_t i = 0; i < n_; ++i)
    if (test(i, i)) return false;
  return true;
}

BitSet BitMatrix::domain() const {
  BitSet s(n_);
  for (size_t i = 0; i < n_; ++i) {
    const uint64_t* r = rowWords(i);
    for (size_t k = 0; k < stride_; ++k)
      if (r[k]) {
        s.set(i);
        break;
      }
  }
  return s;
}

BitSet BitMatrix::range() const {
  BitSet s(n_);
  auto& w = s.words();
  for (size_t i = 0; i < n_; ++i) {
    const uint64_t* r = rowWords(i);
    for (size_t k = 0; k < stride_; ++k) w[k] |= r[k];
  }
  return s;
}

bool BitMatrix::subsetOf(const BitMatrix& o) const {
  for (size_t k = 0; k < d_.size(); ++k)
    if (d_[k] & ~o.d_[k]) return false;
  return true;
}

size_t BitMatrix::hash() const {
  size_t h = n_;
  for (uint64_t w : d_) h = mix(h, w);
  return h;
}

}  // namespace ptxmm
