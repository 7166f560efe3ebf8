#include "outcome/State.hpp"

#include <algorithm>
#include <sstream>

#include "litmus/Printer.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::outcome {
namespace {

// The terms of `p` in order of appearance (constants included).
void collectTerms(const litmus::Prop& p, std::vector<litmus::Term>& out) {
  if (p.kind == litmus::Prop::Kind::Eq || p.kind == litmus::Prop::Kind::Ne) {
    out.push_back(p.lhs);
    out.push_back(p.rhs);
  }
  for (const auto& k : p.kids) collectTerms(k, out);
}

// The terms named in the condition, then those of `locations [...]`.
std::vector<litmus::Term> namedTerms(const litmus::Test& test) {
  std::vector<litmus::Term> raw;
  collectTerms(test.condition.prop, raw);
  raw.insert(raw.end(), test.observed.begin(), test.observed.end());
  return raw;
}

// Canonical key order: registers by (thread, name), then locations by label.
bool keyOrder(const ObservedTerm& a, const ObservedTerm& b) {
  if (a.isReg() != b.isReg()) return a.isReg();
  if (a.isReg()) return a.term.thread != b.term.thread ? a.term.thread < b.term.thread : a.term.reg < b.term.reg;
  return a.label < b.label;
}

// The distinct non-constant terms of `raw` in key order; `check` sees each one first.
std::vector<ObservedTerm> orderedTerms(const std::vector<litmus::Term>& raw,
                                       const std::function<void(ObservedTerm&)>& check) {
  std::vector<ObservedTerm> terms;
  for (const auto& t : raw) {
    if (t.kind == litmus::Term::Kind::Const) continue;
    ObservedTerm o{t, litmus::printTerm(t), -1};
    if (std::any_of(terms.begin(), terms.end(), [&](const ObservedTerm& x) { return x.label == o.label; })) continue;
    check(o);
    terms.push_back(std::move(o));
  }
  std::sort(terms.begin(), terms.end(), keyOrder);
  return terms;
}

}  // namespace

std::vector<litmus::Term> observedTerms(const litmus::Test& test) {
  std::vector<litmus::Term> out;
  for (auto& o : orderedTerms(namedTerms(test), [](ObservedTerm&) {})) out.push_back(std::move(o.term));
  return out;
}

std::string stateKey(std::span<const std::string> labels, std::span<const int64_t> values) {
  std::string key;
  for (size_t i = 0; i < labels.size() && i < values.size(); ++i) {
    if (i) key += ' ';
    key += labels[i] + "=" + std::to_string(values[i]) + ";";
  }
  return key;
}

std::map<std::string, int64_t> parseStateKey(const std::string& key) {
  std::map<std::string, int64_t> vals;
  std::stringstream ss(key);
  std::string item;
  while (std::getline(ss, item, ';')) {
    auto eq = item.find('=');
    if (eq == std::string::npos) continue;
    std::string label = item.substr(0, eq);
    label.erase(0, label.find_first_not_of(' '));
    try {
      vals[label] = std::stoll(item.substr(eq + 1), nullptr, 0);
    } catch (const std::logic_error&) {  // std::invalid_argument, std::out_of_range: not a value
    }
  }
  return vals;
}

std::vector<int64_t> StateSpec::values(const std::string& key) const {
  std::map<std::string, int64_t> items = parseStateKey(key);
  std::vector<int64_t> out;
  out.reserve(labels.size());
  for (const auto& l : labels) {
    auto it = items.find(l);
    out.push_back(it == items.end() ? 0 : it->second);
  }
  return out;
}

bool StateSpec::eval(const ResolvedProp& p, const std::vector<int64_t>& values) {
  using K = litmus::Prop::Kind;
  auto val = [&](int idx, int64_t c) { return idx >= 0 ? values[static_cast<size_t>(idx)] : c; };
  switch (p.kind) {
    case K::True: return true;
    case K::False: return false;
    case K::Eq: return val(p.lhs, p.lhsConst) == val(p.rhs, p.rhsConst);
    case K::Ne: return val(p.lhs, p.lhsConst) != val(p.rhs, p.rhsConst);
    case K::Not: return !eval(p.kids.at(0), values);
    case K::And: return eval(p.kids.at(0), values) && eval(p.kids.at(1), values);
    case K::Or: return eval(p.kids.at(0), values) || eval(p.kids.at(1), values);
    case K::Implies: return !eval(p.kids.at(0), values) || eval(p.kids.at(1), values);
  }
  return false;
}

StateSpec makeStateSpec(const litmus::Test& test, const Locator& locate) {
  StateSpec spec;
  spec.terms = orderedTerms(namedTerms(test), [&](ObservedTerm& o) {
    if (o.isReg()) {
      if (o.term.thread < 0 || static_cast<size_t>(o.term.thread) >= test.threads.size())
        throw DiagnosticError(SourceLoc{test.file, 0, 0}, "condition names thread " + std::to_string(o.term.thread) +
                                                              " but the test has " +
                                                              std::to_string(test.threads.size()) + " threads");
    } else if (locate) {
      std::optional<int> loc = locate(o.term.loc);
      if (!loc) throw DiagnosticError(SourceLoc{test.file, 0, 0}, "condition names unknown location '" + o.label + "'");
      o.loc = *loc;
    }
  });
  for (const auto& t : spec.terms) spec.labels.push_back(t.label);
  auto indexOf = [&](const litmus::Term& t) {
    const std::string label = litmus::printTerm(t);
    for (size_t i = 0; i < spec.labels.size(); ++i)
      if (spec.labels[i] == label) return static_cast<int>(i);
    return -1;
  };
  auto resolve = [&](auto&& self, const litmus::Prop& p) -> ResolvedProp {
    ResolvedProp r;
    r.kind = p.kind;
    if (p.kind == litmus::Prop::Kind::Eq || p.kind == litmus::Prop::Kind::Ne) {
      if (p.lhs.kind == litmus::Term::Kind::Const)
        r.lhsConst = p.lhs.value;
      else
        r.lhs = indexOf(p.lhs);
      if (p.rhs.kind == litmus::Term::Kind::Const)
        r.rhsConst = p.rhs.value;
      else
        r.rhs = indexOf(p.rhs);
    }
    for (const auto& k : p.kids) r.kids.push_back(self(self, k));
    return r;
  };
  spec.prop = resolve(resolve, test.condition.prop);
  return spec;
}

}  // namespace ptxmm::outcome
