#include "cat/BitAlgebra.hpp"

#include <algorithm>
#include <functional>
#include <string>

#include "support/Budget.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::cat {

namespace {
constexpr size_t kMaxLinearisations = 1000000;
}  // namespace

void BitAlgebra::setSet(std::string name, BitSet s) {
  if (auto it = sets_.find(name); it != sets_.end())
    it->second = std::move(s);
  else
    sets_.emplace(std::move(name), std::move(s));
}

void BitAlgebra::setRel(std::string name, BitMatrix r) {
  if (auto it = rels_.find(name); it != rels_.end())
    it->second = std::move(r);
  else
    rels_.emplace(std::move(name), std::move(r));
}

void BitAlgebra::erase(std::string_view name) {
  if (auto it = sets_.find(name); it != sets_.end()) sets_.erase(it);
  if (auto it = rels_.find(name); it != rels_.end()) rels_.erase(it);
}

std::optional<BitSet> BitAlgebra::builtinSet(std::string_view name) const {
  if (auto it = sets_.find(name); it != sets_.end()) return it->second;
  return std::nullopt;
}

std::optional<BitMatrix> BitAlgebra::builtinRel(std::string_view name) const {
  if (auto it = rels_.find(name); it != rels_.end()) return it->second;
  return std::nullopt;
}

BitSet BitAlgebra::singletonSet(size_t e) const {
  BitSet s(n_);
  s.set(e);
  return s;
}

BitMatrix BitAlgebra::singletonRel(size_t a, size_t b) const {
  BitMatrix r(n_);
  r.set(a, b);
  return r;
}

std::vector<BitSet> BitAlgebra::classesLoc(const BitSet& s) const {
  std::vector<BitSet> out;
  auto loc = rels_.find(std::string_view("loc"));
  BitSet left = s;
  s.forEach([&](size_t e) {
    if (!left.test(e)) return;
    BitSet cls(n_);
    if (loc != rels_.end()) cls = loc->second.row(e) & left;
    cls.set(e);
    left -= cls;
    out.push_back(std::move(cls));
  });
  return out;
}

std::vector<BitMatrix> BitAlgebra::linearisations(const BitSet& s, const BitMatrix& r) const {
  std::vector<BitMatrix> out;
  std::vector<size_t> elems = s.elements();
  BitMatrix req = r.restrict(s, s);
  std::vector<size_t> order;
  BitSet placed(n_);
  // Depth-first topological sorts: an element can come next once all its required predecessors
  // are placed.
  std::function<void()> rec = [&]() {
    pollBudget("cat interpreter (linearisations)");
    if (out.size() > kMaxLinearisations)
      throw DiagnosticError(SourceLoc{},
                            "linearisations: more than " + std::to_string(kMaxLinearisations) + " total orders");
    if (order.size() == elems.size()) {
      BitMatrix lin(n_);
      for (size_t i = 0; i < order.size(); ++i)
        for (size_t j = i + 1; j < order.size(); ++j) lin.set(order[i], order[j]);
      out.push_back(std::move(lin));
      return;
    }
    for (size_t e : elems) {
      if (placed.test(e)) continue;
      BitSet preds = req.column(e);
      if (!preds.subsetOf(placed)) continue;
      placed.set(e);
      order.push_back(e);
      rec();
      order.pop_back();
      placed.reset(e);
    }
  };
  rec();
  return out;
}

}  // namespace ptxmm::cat
