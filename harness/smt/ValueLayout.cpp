// The narrow value layout of the smt engine: kinds by unification, ranges by interval propagation.
#include "smt/ValueLayout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>
#include <numeric>

namespace ptxmm::smt {

using events::ExprId;
using events::ExprOp;

namespace {

using I128 = __int128;

// Bits of a two's complement word holding every value of [lo, hi].
unsigned signedBits(I128 lo, I128 hi) {
  unsigned b = 1;
  while (lo < -(I128{1} << (b - 1)) || hi >= (I128{1} << (b - 1))) ++b;
  return b;
}
// Bits of an unsigned word holding 0..hi (at least 1).
unsigned unsignedBits(I128 hi) {
  unsigned b = 1;
  while (hi >= (I128{1} << b)) ++b;
  return b;
}
int64_t signExtend(uint64_t v, unsigned bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  const uint64_t m = uint64_t{1} << (bits - 1);
  v &= (uint64_t{1} << bits) - 1;
  return static_cast<int64_t>((v ^ m) - m);
}
bool fitsSigned(int64_t v, unsigned bits) {
  return bits >= 64 || (v >= -(int64_t{1} << (bits - 1)) && v < (int64_t{1} << (bits - 1)));
}

// Raised when no narrow layout is exact.
struct NoNarrow {};

// An interval of unbounded integers (I128), empty when lo > hi.
struct Itv {
  I128 lo = 1, hi = 0;
  [[nodiscard]] bool empty() const { return lo > hi; }
  static Itv of(I128 a, I128 b) { return {std::min(a, b), std::max(a, b)}; }
  bool operator==(const Itv&) const = default;
};
Itv join(const Itv& a, const Itv& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}
bool contains(const Itv& a, I128 v) { return !a.empty() && a.lo <= v && v <= a.hi; }

// The mbarrier fields, as unbounded representatives: the 64-bit word holds each modulo its width.
enum Field { kTx, kPending, kPhase, kDropped };

// An abstract value: a plain interval (f[0]) or the four field intervals of an mbarrier state.
struct Abs {
  std::array<Itv, 4> f;
  [[nodiscard]] bool empty() const { return f[0].empty(); }
  bool operator==(const Abs&) const = default;
};
Abs joinAbs(const Abs& a, const Abs& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  Abs r;
  for (size_t i = 0; i < 4; ++i) r.f[i] = join(a.f[i], b.f[i]);
  return r;
}
Abs plainAbs(Itv i) {
  Abs r;
  r.f = {i, Itv{0, 0}, Itv{0, 0}, Itv{0, 0}};
  if (i.empty()) r.f[1] = r.f[2] = r.f[3] = Itv{};
  return r;
}

// Representatives of the fields of a 64-bit state word.
std::array<int64_t, 4> fieldsOf(int64_t v) {
  return {events::mbarrierTxCount(v), signExtend(static_cast<uint64_t>(events::mbarrierPending(v)), 20),
          events::mbarrierPhase(v), events::mbarrierDropped(v)};
}

constexpr I128 kPlainLimit = I128{1} << 62;

// Kinds by unification: one variable per non-constant node and per location.
class Kinds {
 public:
  Kinds(size_t nodes, size_t locs) : parent_(nodes + locs), label_(nodes + locs, kUnknown), nodes_(nodes) {
    std::iota(parent_.begin(), parent_.end(), size_t{0});
  }
  size_t loc(int l) const { return nodes_ + static_cast<size_t>(l); }
  size_t find(size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void unite(size_t a, size_t b) {
    a = find(a), b = find(b);
    if (a == b) return;
    parent_[b] = a;
    label(a, label_[b]);
  }
  void label(size_t x, int k) {
    if (k == kUnknown) return;
    x = find(x);
    if (label_[x] != kUnknown && label_[x] != k) throw NoNarrow{};
    label_[x] = k;
  }
  int labelOf(size_t x) { return label_[find(x)]; }
  static constexpr int kUnknown = -1, kPlain = 0, kMb = 1;

 private:
  std::vector<size_t> parent_;
  std::vector<int> label_;
  size_t nodes_;
};

class Analysis {
 public:
  Analysis(const events::ExprPool& pool, const LayoutInput& in) : pool_(pool), in_(in) {}

  ValueLayout run() {
    collect();
    ValueLayout l;
    l.narrow = true;
    assignKinds(l);
    layout_ = &l;
    propagate();
    // The widths: every value of the last round, and the condition's constants.
    Itv plain{0, 1}, fields[4] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
    auto note = [&](const Abs& a, ValueKind k) {
      if (a.empty()) return;
      if (k == ValueKind::Plain) {
        plain = join(plain, a.f[0]);
      } else {
        for (size_t i = 0; i < 4; ++i) fields[i] = join(fields[i], a.f[i]);
      }
    };
    record_ = [&](const Abs& a, ValueKind k) { note(a, k); };
    evalRound();
    record_ = nullptr;
    for (int64_t c : in_.plainConstants) plain = join(plain, Itv{c, c});
    for (ExprId e : in_.others)  // a constant guard or condition: a plain value
      if (e >= 0 && pool_.isConst(e)) plain = join(plain, Itv{pool_.node(e).value, pool_.node(e).value});
    if (plain.lo < -kPlainLimit || plain.hi > kPlainLimit) throw NoNarrow{};
    if (fields[kTx].lo <= -(I128{1} << 23) || fields[kTx].hi >= (I128{1} << 23) ||
        fields[kPending].lo <= -(I128{1} << 19) || fields[kPending].hi >= (I128{1} << 19) || fields[kPhase].lo < 0 ||
        fields[kPhase].hi > 4095 || fields[kDropped].lo < 0 || fields[kDropped].hi > 255)
      throw NoNarrow{};
    l.plain = signedBits(plain.lo, plain.hi);
    l.tx = signedBits(fields[kTx].lo, fields[kTx].hi);
    l.pending = signedBits(fields[kPending].lo, fields[kPending].hi);
    l.phase = unsignedBits(fields[kPhase].hi);
    l.dropped = unsignedBits(fields[kDropped].hi);
    if (l.plain >= 64) throw NoNarrow{};
    return l;
  }

 private:
  // The non-constant nodes the encoding evaluates, children before parents.
  void collect() {
    std::vector<char> seen(pool_.size(), 0);
    auto visit = [&](ExprId root) {
      if (root < 0) return;
      std::vector<std::pair<ExprId, bool>> stack{{root, false}};
      while (!stack.empty()) {
        auto [x, expanded] = stack.back();
        stack.pop_back();
        if (expanded) {
          order_.push_back(x);
          continue;
        }
        if (seen[static_cast<size_t>(x)] || pool_.isConst(x)) continue;
        seen[static_cast<size_t>(x)] = 1;
        stack.push_back({x, true});
        for (ExprId a : pool_.node(x).args) stack.push_back({a, false});
      }
    };
    for (const auto& ws : in_.writesByLoc)
      for (ExprId v : ws) visit(v);
    for (ExprId e : in_.others) visit(e);
    for (const auto& g : in_.sameKind)
      for (ExprId e : g) visit(e);
  }

  void assignKinds(ValueLayout& l) {
    Kinds k(pool_.size(), in_.writesByLoc.size());
    auto var = [](ExprId e) { return static_cast<size_t>(e); };
    auto labelArg = [&](ExprId a, int kind) {
      if (!pool_.isConst(a)) k.label(var(a), kind);
    };
    std::vector<ExprId> shifts;
    for (ExprId x : order_) {
      const events::ExprNode& n = pool_.node(x);
      switch (n.op) {
        case ExprOp::Const: break;
        case ExprOp::ReadVal: {
          const size_t e = static_cast<size_t>(n.event);
          if (e < in_.readLoc.size() && in_.readLoc[e] >= 0) k.unite(k.loc(in_.readLoc[e]), var(x));
          break;
        }
        case ExprOp::Shl: shifts.push_back(x); break;
        case ExprOp::Add:
        case ExprOp::Sub:
        case ExprOp::Mul:
        case ExprOp::Div:
        case ExprOp::Rem:
        case ExprOp::And:
        case ExprOp::Or:
        case ExprOp::Xor:
        case ExprOp::Shr:
        case ExprOp::Lt:
        case ExprOp::Le:
          k.label(var(x), Kinds::kPlain);
          for (ExprId a : n.args) labelArg(a, Kinds::kPlain);
          break;
        case ExprOp::Eq:
        case ExprOp::Ne:
          k.label(var(x), Kinds::kPlain);
          if (!pool_.isConst(n.args[0]) && !pool_.isConst(n.args[1])) k.unite(var(n.args[0]), var(n.args[1]));
          break;
        case ExprOp::LNot:
        case ExprOp::LAnd:
        case ExprOp::LOr: k.label(var(x), Kinds::kPlain); break;
        case ExprOp::Ite:
          for (size_t i = 1; i < 3; ++i)
            if (!pool_.isConst(n.args[i])) k.unite(var(x), var(n.args[i]));
          break;
        case ExprOp::MbArrive:
        case ExprOp::MbTx:
        case ExprOp::MbArriveDrop:
          k.label(var(x), Kinds::kMb);
          labelArg(n.args[0], Kinds::kMb);
          for (size_t i = 1; i < n.args.size(); ++i) labelArg(n.args[i], Kinds::kPlain);
          break;
        case ExprOp::MbPhase:
          k.label(var(x), Kinds::kPlain);
          labelArg(n.args[0], Kinds::kMb);
          break;
      }
    }
    for (size_t loc = 0; loc < in_.writesByLoc.size(); ++loc)
      for (ExprId v : in_.writesByLoc[loc])
        if (v >= 0 && !pool_.isConst(v)) k.unite(k.loc(static_cast<int>(loc)), var(v));
    for (const auto& g : in_.sameKind) {
      ExprId first = -1;
      for (ExprId e : g) {
        if (pool_.isConst(e)) continue;
        if (first >= 0) k.unite(var(first), var(e));
        first = e;
      }
    }
    // A shift stored as an mbarrier state is the state word of mbarrier.init (count << 24): pending = count.
    for (ExprId x : shifts) {
      const events::ExprNode& n = pool_.node(x);
      if (k.labelOf(var(x)) == Kinds::kMb) {
        if (!pool_.isConst(n.args[1]) || pool_.node(n.args[1]).value != 24) throw NoNarrow{};
        labelArg(n.args[0], Kinds::kPlain);
      } else {
        k.label(var(x), Kinds::kPlain);
        for (ExprId a : n.args) labelArg(a, Kinds::kPlain);
      }
    }
    l.nodeKind.assign(pool_.size(), ValueKind::Plain);
    for (ExprId x : order_)
      if (k.labelOf(var(x)) == Kinds::kMb) l.nodeKind[var(x)] = ValueKind::Mbarrier;
    l.locKind.assign(in_.writesByLoc.size(), ValueKind::Plain);
    for (size_t loc = 0; loc < in_.writesByLoc.size(); ++loc)
      if (k.labelOf(k.loc(static_cast<int>(loc))) == Kinds::kMb) l.locKind[loc] = ValueKind::Mbarrier;
  }

  // Kleene iteration from no read value: after round r the reads hold the values of the executions whose
  // value-dependency chains have at most r + 1 reads. In an execution without a dependency cycle a chain
  // repeats no read: it is a simple path of the read graph (r' -> r when r may read a write whose value
  // uses r'), at most as long as the longest path of its strongly connected components, each counted with
  // all its reads.
  void propagate() {
    const size_t rounds = longestChain();
    locVal_.assign(in_.writesByLoc.size(), Abs{});
    for (size_t round = 0; round <= rounds; ++round) {
      std::vector<Abs> next = evalRound();
      if (next == locVal_) return;
      locVal_ = std::move(next);
    }
  }

  // The bound on the reads of a dependency chain without repeated reads (see propagate).
  size_t longestChain() const {
    // Reads (by EventId) and, per location, the reads its writes' values use.
    std::vector<int> index(in_.readLoc.size(), -1);
    std::vector<size_t> readsAt;
    for (size_t e = 0; e < in_.readLoc.size(); ++e)
      if (in_.readLoc[e] >= 0) index[e] = static_cast<int>(readsAt.size()), readsAt.push_back(e);
    const size_t nr = readsAt.size();
    std::vector<std::vector<size_t>> usedBy(in_.writesByLoc.size());
    for (size_t loc = 0; loc < in_.writesByLoc.size(); ++loc) {
      std::vector<events::EventId> rs;
      for (ExprId v : in_.writesByLoc[loc])
        if (v >= 0) pool_.collectReads(v, rs);
      for (events::EventId r : rs)
        if (static_cast<size_t>(r) < index.size() && index[static_cast<size_t>(r)] >= 0)
          usedBy[loc].push_back(static_cast<size_t>(index[static_cast<size_t>(r)]));
    }
    // succ: r' -> r for every read r of a location whose writes use r'.
    std::vector<std::vector<size_t>> succ(nr);
    for (size_t i = 0; i < nr; ++i)
      for (size_t from : usedBy[static_cast<size_t>(in_.readLoc[readsAt[i]])]) succ[from].push_back(i);
    // Tarjan's strongly connected components (iterative); components come out in reverse topological order.
    std::vector<int> low(nr, -1), num(nr, -1), comp(nr, -1);
    std::vector<size_t> stack, compSize;
    std::vector<char> onStack(nr, 0);
    int counter = 0;
    for (size_t root = 0; root < nr; ++root) {
      if (num[root] >= 0) continue;
      std::vector<std::pair<size_t, size_t>> work{{root, 0}};
      while (!work.empty()) {
        auto& [v, next] = work.back();
        if (next == 0 && num[v] < 0) {
          num[v] = low[v] = counter++;
          stack.push_back(v);
          onStack[v] = 1;
        }
        if (next < succ[v].size()) {
          const size_t w = succ[v][next++];
          if (num[w] < 0) {
            work.push_back({w, 0});
          } else if (onStack[w]) {
            low[v] = std::min(low[v], num[w]);
          }
          continue;
        }
        if (low[v] == num[v]) {
          const int c = static_cast<int>(compSize.size());
          compSize.push_back(0);
          size_t w;
          do {
            w = stack.back();
            stack.pop_back();
            onStack[w] = 0;
            comp[w] = c;
            ++compSize.back();
          } while (w != v);
        }
        const size_t done = v;
        work.pop_back();
        if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[done]);
      }
    }
    // Longest path over the components, each weighing its size: components in topological order are the
    // reverse of Tarjan's.
    std::vector<std::vector<size_t>> members(compSize.size());
    for (size_t i = 0; i < nr; ++i) members[static_cast<size_t>(comp[i])].push_back(i);
    std::vector<size_t> best(compSize.size(), 0);
    size_t longest = 0;
    for (size_t c = compSize.size(); c-- > 0;) {
      best[c] += compSize[c];
      longest = std::max(longest, best[c]);
      for (size_t v : members[c])
        for (size_t w : succ[v]) {
          const size_t d = static_cast<size_t>(comp[w]);
          if (d != c) best[d] = std::max(best[d], best[c]);
        }
    }
    return longest;
  }

  // Evaluates every collected node with the read values of locVal_; returns the new value of each location.
  std::vector<Abs> evalRound() {
    memo_.assign(pool_.size(), Abs{});
    for (ExprId x : order_) {
      memo_[static_cast<size_t>(x)] = evalNode(x);
      if (record_) record_(memo_[static_cast<size_t>(x)], layout_->kindOf(pool_, x));
    }
    std::vector<Abs> out(in_.writesByLoc.size());
    for (size_t loc = 0; loc < in_.writesByLoc.size(); ++loc)
      for (ExprId v : in_.writesByLoc[loc]) out[loc] = joinAbs(out[loc], arg(v, layout_->locKind[loc]));
    return out;
  }

  // The abstract value of node a read as kind k (-1: the constant 0 a write without value stores).
  Abs arg(ExprId a, ValueKind k) {
    if (a >= 0 && !pool_.isConst(a)) return memo_[static_cast<size_t>(a)];
    const int64_t v = a >= 0 ? pool_.node(a).value : 0;
    Abs r;
    if (k == ValueKind::Plain) {
      r = plainAbs(Itv{v, v});
    } else {
      auto f = fieldsOf(v);
      for (size_t i = 0; i < 4; ++i) r.f[i] = Itv{f[i], f[i]};
    }
    if (record_) record_(r, k);
    return r;
  }

  static Itv checked(Itv i) {
    if (!i.empty() && (i.lo < -kPlainLimit || i.hi > kPlainLimit)) throw NoNarrow{};
    return i;
  }

  Abs evalNode(ExprId x) {
    const events::ExprNode& n = pool_.node(x);
    std::vector<Abs> a;
    for (size_t i = 0; i < n.args.size(); ++i) a.push_back(arg(n.args[i], layout_->argKind(pool_, x, i)));
    for (const Abs& v : a)
      if (v.empty()) return Abs{};  // depends on a read with no value yet
    auto p = [&](size_t i) { return a[i].f[0]; };
    auto absMax = [](Itv i) { return std::max(i.hi < 0 ? -i.hi : i.hi, i.lo < 0 ? -i.lo : i.lo); };
    auto bool01 = [] { return plainAbs(Itv{0, 1}); };
    switch (n.op) {
      case ExprOp::Const: return plainAbs(Itv{n.value, n.value});
      case ExprOp::ReadVal: {
        const size_t e = static_cast<size_t>(n.event);
        if (e >= in_.readLoc.size() || in_.readLoc[e] < 0) throw NoNarrow{};  // a read the encoding has no source for
        return locVal_[static_cast<size_t>(in_.readLoc[e])];
      }
      case ExprOp::Add: return plainAbs(checked({p(0).lo + p(1).lo, p(0).hi + p(1).hi}));
      case ExprOp::Sub: return plainAbs(checked({p(0).lo - p(1).hi, p(0).hi - p(1).lo}));
      case ExprOp::Mul: {
        const I128 c[4] = {p(0).lo * p(1).lo, p(0).lo * p(1).hi, p(0).hi * p(1).lo, p(0).hi * p(1).hi};
        return plainAbs(checked({*std::min_element(c, c + 4), *std::max_element(c, c + 4)}));
      }
      case ExprOp::Div:
      case ExprOp::Rem: {
        const I128 m = absMax(p(0));
        return plainAbs({-m, m});
      }
      case ExprOp::And:
      case ExprOp::Or:
      case ExprOp::Xor: {
        if (p(0).lo >= 0 && p(1).lo >= 0) {
          if (n.op == ExprOp::And) return plainAbs({0, std::min(p(0).hi, p(1).hi)});
          return plainAbs({0, (I128{1} << unsignedBits(std::max(p(0).hi, p(1).hi))) - 1});
        }
        const unsigned b = std::max(signedBits(p(0).lo, p(0).hi), signedBits(p(1).lo, p(1).hi));
        return plainAbs(checked({-(I128{1} << (b - 1)), (I128{1} << (b - 1)) - 1}));
      }
      case ExprOp::Shl: {
        if (layout_->kindOf(pool_, x) == ValueKind::Mbarrier) {  // count << 24 as a state word
          if (p(0).lo < 0 || p(0).hi >= (I128{1} << 19)) throw NoNarrow{};
          Abs r;
          r.f = {Itv{0, 0}, p(0), Itv{0, 0}, Itv{0, 0}};
          return r;
        }
        if (p(1).lo < 0 || p(1).hi > 62 || absMax(p(0)) > (kPlainLimit >> static_cast<int>(p(1).hi))) throw NoNarrow{};
        const I128 c[4] = {p(0).lo << static_cast<int>(p(1).lo), p(0).lo << static_cast<int>(p(1).hi),
                           p(0).hi << static_cast<int>(p(1).lo), p(0).hi << static_cast<int>(p(1).hi)};
        return plainAbs({*std::min_element(c, c + 4), *std::max_element(c, c + 4)});
      }
      case ExprOp::Shr:
        if (p(0).lo < 0 || p(1).lo < 0 || p(1).hi > 63) throw NoNarrow{};
        return plainAbs({p(0).lo >> static_cast<int>(p(1).hi), p(0).hi >> static_cast<int>(p(1).lo)});
      case ExprOp::Eq:
      case ExprOp::Ne:
      case ExprOp::Lt:
      case ExprOp::Le:
      case ExprOp::LNot:
      case ExprOp::LAnd:
      case ExprOp::LOr: return bool01();
      case ExprOp::Ite: {
        // The condition is tested against 0 in its own kind: a state word is 0 only if all fields are.
        bool mayZero = true, mayNonZero = true;
        if (layout_->argKind(pool_, x, 0) == ValueKind::Plain) {
          mayZero = contains(p(0), 0);
          mayNonZero = !(p(0).lo == 0 && p(0).hi == 0);
        }
        Abs r;
        if (mayNonZero) r = joinAbs(r, a[1]);
        if (mayZero) r = joinAbs(r, a[2]);
        return r;
      }
      case ExprOp::MbArrive:
      case ExprOp::MbTx:
      case ExprOp::MbArriveDrop: {
        const Abs& s = a[0];
        const bool tx = n.op == ExprOp::MbTx;
        const Itv arrivals = tx ? Itv{0, 0} : p(1);
        const Itv dTx = tx ? p(1) : p(2);
        const Itv expected = tx ? p(2) : p(3);
        const Itv drop = n.op == ExprOp::MbArriveDrop ? p(1) : Itv{0, 0};
        const Itv txNew{s.f[kTx].lo + dTx.lo, s.f[kTx].hi + dTx.hi};
        const Itv pendingNew{s.f[kPending].lo - arrivals.hi, s.f[kPending].hi - arrivals.lo};
        const Itv droppedNew{s.f[kDropped].lo + drop.lo, s.f[kDropped].hi + drop.hi};
        Abs r;
        if (!(txNew == Itv{0, 0} && pendingNew == Itv{0, 0})) r.f = {txNew, pendingNew, s.f[kPhase], droppedNew};
        if (contains(txNew, 0) && contains(pendingNew, 0)) {
          Abs done;
          done.f = {Itv{0, 0}, Itv{expected.lo - droppedNew.hi, expected.hi - droppedNew.lo},
                    Itv{s.f[kPhase].lo + 1, s.f[kPhase].hi + 1}, droppedNew};
          r = joinAbs(r, done);
        }
        for (const Itv& f : r.f) checked(f);
        return r;
      }
      case ExprOp::MbPhase: return plainAbs(a[0].f[kPhase]);
    }
    throw NoNarrow{};
  }

  const events::ExprPool& pool_;
  const LayoutInput& in_;
  const ValueLayout* layout_ = nullptr;
  std::vector<ExprId> order_;
  std::vector<Abs> memo_, locVal_;
  std::function<void(const Abs&, ValueKind)> record_;
};

}  // namespace

ValueKind ValueLayout::kindOf(const events::ExprPool& pool, ExprId id) const {
  if (!narrow || id < 0 || pool.isConst(id)) return ValueKind::Plain;
  return nodeKind[static_cast<size_t>(id)];
}

ValueKind ValueLayout::argKind(const events::ExprPool& pool, ExprId id, size_t i) const {
  if (!narrow) return ValueKind::Plain;
  const events::ExprNode& n = pool.node(id);
  switch (n.op) {
    case ExprOp::MbArrive:
    case ExprOp::MbTx:
    case ExprOp::MbArriveDrop: return i == 0 ? ValueKind::Mbarrier : ValueKind::Plain;
    case ExprOp::MbPhase: return ValueKind::Mbarrier;
    case ExprOp::Eq:
    case ExprOp::Ne: {
      // One kind for both sides: the kind of the non-constant one.
      ExprId other = n.args[1 - i];
      return pool.isConst(n.args[i]) ? kindOf(pool, other) : kindOf(pool, n.args[i]);
    }
    case ExprOp::Ite: return i == 0 ? kindOf(pool, n.args[0]) : kindOf(pool, id);
    case ExprOp::LNot:
    case ExprOp::LAnd:
    case ExprOp::LOr: return kindOf(pool, n.args[i]);
    default: return ValueKind::Plain;
  }
}

std::optional<uint64_t> ValueLayout::encode(ValueKind k, int64_t v) const {
  if (!narrow) return static_cast<uint64_t>(v);
  auto low = [](int64_t x, unsigned b) { return static_cast<uint64_t>(x) & ((uint64_t{1} << b) - 1); };
  if (k == ValueKind::Plain) {
    if (!fitsSigned(v, plain)) return std::nullopt;
    return low(v, plain);
  }
  auto f = fieldsOf(v);
  if (!fitsSigned(f[kTx], tx) || !fitsSigned(f[kPending], pending) || f[kPhase] >= (int64_t{1} << phase) ||
      f[kDropped] >= (int64_t{1} << dropped))
    return std::nullopt;
  return low(f[kTx], tx) | (low(f[kPending], pending) << tx) | (low(f[kPhase], phase) << (tx + pending)) |
         (low(f[kDropped], dropped) << (tx + pending + phase));
}

int64_t ValueLayout::decode(ValueKind k, uint64_t b) const {
  if (!narrow) return static_cast<int64_t>(b);
  if (k == ValueKind::Plain) return signExtend(b, plain);
  auto field = [&](unsigned at, unsigned w) { return (b >> at) & ((uint64_t{1} << w) - 1); };
  return events::mbarrierState(signExtend(field(0, tx), tx), signExtend(field(tx, pending), pending),
                               static_cast<int64_t>(field(tx + pending, phase)),
                               static_cast<int64_t>(field(tx + pending + phase, dropped)));
}

std::string ValueLayout::describe() const {
  if (!narrow) return "64 bits";
  auto isMb = [](ValueKind k) { return k == ValueKind::Mbarrier; };
  if (std::none_of(nodeKind.begin(), nodeKind.end(), isMb) && std::none_of(locKind.begin(), locKind.end(), isMb))
    return fmt::format("plain {} bits, no mbarrier state", plain);
  return fmt::format("plain {} bits, mbarrier {}+{}+{}+{} bits", plain, tx, pending, phase, dropped);
}

ValueLayout computeLayout(const events::ExprPool& pool, const LayoutInput& in) {
  try {
    return Analysis(pool, in).run();
  } catch (const NoNarrow&) {
    return ValueLayout{};
  }
}

}  // namespace ptxmm::smt
