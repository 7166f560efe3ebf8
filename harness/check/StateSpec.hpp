// What a final state consists of, for one test: the observed terms (registers and locations named
// in the condition or in `locations [...]`, herd convention) in canonical key order, and the
// condition's proposition over them. Header-only so that the engines (enum/, smt/) share it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "events/EventProgram.hpp"
#include "events/Lower.hpp"
#include "litmus/Ast.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::check {

/// One observed term of a final state.
struct ObservedTerm {
  bool isReg = false;  ///< register of a thread, or final value of a location
  int thread = -1;     ///< isReg: thread index
  std::string reg;     ///< isReg: register name
  int loc = -1;        ///< !isReg: physical location id
  std::string name;    ///< !isReg: location name as printed

  /// "0:r1" or "x".
  [[nodiscard]] std::string text() const { return isReg ? std::to_string(thread) + ":" + reg : name; }
};

/// The condition's proposition with terms resolved to indices into StateSpec::terms.
struct ResolvedProp {
  litmus::Prop::Kind kind = litmus::Prop::Kind::True;
  int lhs = -1, rhs = -1;              ///< Eq/Ne: term index, or -1 for a constant
  int64_t lhsConst = 0, rhsConst = 0;  ///< constants of Eq/Ne
  std::vector<ResolvedProp> kids;      ///< Not/And/Or/Implies
};

/// Observed terms in key order, and the proposition of interest.
struct StateSpec {
  std::vector<ObservedTerm> terms;
  ResolvedProp prop;  ///< the condition's proposition (not negated, also for forall)

  /// Canonical key "0:r1=1; 1:r2=0; x=2;" of the given term values.
  [[nodiscard]] std::string key(const std::vector<int64_t>& values) const {
    std::string s;
    for (size_t i = 0; i < terms.size(); ++i) {
      if (i) s += ' ';
      s += terms[i].text() + "=" + std::to_string(values[i]) + ";";
    }
    return s;
  }

  /// Whether the proposition holds for these values.
  [[nodiscard]] bool satisfies(const std::vector<int64_t>& values) const { return eval(prop, values); }

  /// Concrete evaluation of a resolved proposition.
  static bool eval(const ResolvedProp& p, const std::vector<int64_t>& values) {
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
};

namespace detail {

inline void collectTerms(const litmus::Prop& p, std::vector<litmus::Term>& out) {
  if (p.kind == litmus::Prop::Kind::Eq || p.kind == litmus::Prop::Kind::Ne) {
    out.push_back(p.lhs);
    out.push_back(p.rhs);
  }
  for (const auto& k : p.kids) collectTerms(k, out);
}

}  // namespace detail

/// Builds the state spec of a lowered test. Throws DiagnosticError naming the test file for a
/// condition term that names no location or thread.
inline StateSpec makeStateSpec(const events::EventProgram& program) {
  const litmus::Test& test = *program.test;
  std::vector<litmus::Term> raw;
  detail::collectTerms(test.condition.prop, raw);
  raw.insert(raw.end(), test.observed.begin(), test.observed.end());
  StateSpec spec;
  auto indexOf = [&](const litmus::Term& t) -> int {
    ObservedTerm o;
    if (t.kind == litmus::Term::Kind::Reg) {
      if (t.thread < 0 || static_cast<size_t>(t.thread) >= test.threads.size())
        throw DiagnosticError(SourceLoc{test.file, 0, 0}, "condition names thread " + std::to_string(t.thread) +
                                                              " but the test has " +
                                                              std::to_string(test.threads.size()) + " threads");
      o.isReg = true;
      o.thread = t.thread;
      o.reg = t.reg;
    } else {
      auto loc = events::findLocation(program, t.loc);
      std::string nm = t.loc.cta >= 0 ? t.loc.name + "@cta" + std::to_string(t.loc.cta) : t.loc.name;
      if (!loc) throw DiagnosticError(SourceLoc{test.file, 0, 0}, "condition names unknown location '" + nm + "'");
      o.loc = *loc;
      o.name = nm;
    }
    for (size_t i = 0; i < spec.terms.size(); ++i) {
      const auto& x = spec.terms[i];
      if (x.isReg == o.isReg && x.thread == o.thread && x.reg == o.reg && x.loc == o.loc) return static_cast<int>(i);
    }
    spec.terms.push_back(o);
    return static_cast<int>(spec.terms.size() - 1);
  };
  for (const auto& t : raw)
    if (t.kind != litmus::Term::Kind::Const) indexOf(t);
  // Canonical order: registers by (thread, name), then locations by name.
  std::sort(spec.terms.begin(), spec.terms.end(), [](const ObservedTerm& a, const ObservedTerm& b) {
    if (a.isReg != b.isReg) return a.isReg;
    if (a.isReg) return a.thread != b.thread ? a.thread < b.thread : a.reg < b.reg;
    return a.name < b.name;
  });
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

}  // namespace ptxmm::check
