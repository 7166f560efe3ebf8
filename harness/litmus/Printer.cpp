#include "litmus/Printer.hpp"

#include <string_view>

#include "ptx/Ops.hpp"
#include "support/Hash.hpp"

namespace ptxmm::litmus {
namespace {

std::string locRef(const LocRef& r) { return r.cta >= 0 ? r.name + "@cta" + std::to_string(r.cta) : r.name; }

// Precedence: Implies 1 < Or 2 < And 3 < Not 4 < atoms 5.
int prec(const Prop& p) {
  switch (p.kind) {
    case Prop::Kind::Implies: return 1;
    case Prop::Kind::Or: return 2;
    case Prop::Kind::And: return 3;
    case Prop::Kind::Not: return 4;
    default: return 5;
  }
}

std::string wrap(const Prop& p, int minPrec) {
  std::string s = printProp(p);
  return prec(p) < minPrec ? "(" + s + ")" : s;
}

}  // namespace

std::string printOperand(const Operand& o) {
  switch (o.kind) {
    case Operand::Kind::Reg:
    case Operand::Kind::Label:
    case Operand::Kind::Special: return o.name;
    case Operand::Kind::Imm: return std::to_string(o.imm);
    case Operand::Kind::Loc: return locRef(o.loc);
    case Operand::Kind::Sink: return "_";
    case Operand::Kind::Addr: {
      std::string s = "[" + (o.baseReg.empty() ? locRef(o.loc) : o.baseReg);
      if (o.imm > 0) s += "+" + std::to_string(o.imm);
      if (o.imm < 0) s += std::to_string(o.imm);
      if (!o.elems.empty()) {  // tensor coordinates: `[tensorMap, {c0, c1}]`
        s += ", {";
        for (size_t i = 0; i < o.elems.size(); ++i) s += (i ? ", " : "") + printOperand(o.elems[i]);
        s += "}";
      }
      return s + "]";
    }
    case Operand::Kind::Vector: {
      std::string s = "{";
      for (size_t i = 0; i < o.elems.size(); ++i) s += (i ? ", " : "") + printOperand(o.elems[i]);
      return s + "}";
    }
  }
  return "";
}

std::string printInstr(const Instr& in) {
  const ptx::OpInfo& op = ptx::opInfo(in.op);
  std::string s;
  if (in.guard) s += "@" + std::string(in.guard->negated ? "!" : "") + in.guard->pred + " ";
  std::vector<bool> used(in.flags.size(), false);
  if ((in.op == ptx::OpId::BarSync || in.op == ptx::OpId::BarArrive) && in.hasFlag("aligned")) {
    // `bar.sync` is already aligned; the explicit form is spelled `barrier.{sync,arrive}.aligned`.
    s += in.op == ptx::OpId::BarSync ? "barrier.sync" : "barrier.arrive";
  } else if (in.op == ptx::OpId::BarArrive && in.operands.size() == 1) {
    s += "bar.cta.arrive";  // the Dat3M arrival without a thread count (no PTX spelling)
  } else {
    s += op.mnemonic;
  }
  for (auto g : ptx::qualifierGroups(op)) {
    if (g == "sem") {
      if (in.sem == ptx::Sem::Mmio)
        s += ".mmio.relaxed";
      else if (in.sem != ptx::Sem::None)
        s += "." + std::string(ptx::toString(in.sem));
    } else if (g == "scope") {
      if (in.scope != ptx::Scope::None) s += "." + std::string(ptx::toString(in.scope));
    } else if (g == "space" || g == "dstspace") {
      s += ptx::toString(in.space);
    } else if (g == "srcspace") {
      s += ptx::toString(in.srcSpace);
    } else if (g == "type") {
      s += ptx::toString(in.type);
    } else {
      for (size_t i = 0; i < in.flags.size(); ++i)
        if (!used[i] && ptx::groupAccepts(g, in.flags[i])) {
          s += "." + in.flags[i];
          used[i] = true;
          break;
        }
    }
  }
  for (size_t i = 0; i < in.operands.size(); ++i) {
    const Operand& o = in.operands[i];
    // A dialect-only form keeps the Dat3M spelling of its location operands (bare `x`).
    bool bare = in.dialect && o.kind == Operand::Kind::Addr && o.baseReg.empty() && o.imm == 0 && o.elems.empty();
    s += (i ? ", " : " ") + (bare ? locRef(o.loc) : printOperand(o));
  }
  return s;
}

std::string printTerm(const Term& t) {
  switch (t.kind) {
    case Term::Kind::Reg: return std::to_string(t.thread) + ":" + t.reg;
    case Term::Kind::Loc: return locRef(t.loc);
    case Term::Kind::Const: return std::to_string(t.value);
  }
  return "";
}

std::string printProp(const Prop& p) {
  switch (p.kind) {
    case Prop::Kind::True: return "true";
    case Prop::Kind::False: return "false";
    case Prop::Kind::Eq: return printTerm(p.lhs) + "=" + printTerm(p.rhs);
    case Prop::Kind::Ne: return printTerm(p.lhs) + "!=" + printTerm(p.rhs);
    case Prop::Kind::Not: return "~" + wrap(p.kids.at(0), 4);
    case Prop::Kind::And: return wrap(p.kids.at(0), 3) + " /\\ " + wrap(p.kids.at(1), 4);
    case Prop::Kind::Or: return wrap(p.kids.at(0), 2) + " \\/ " + wrap(p.kids.at(1), 3);
    case Prop::Kind::Implies: return wrap(p.kids.at(0), 2) + " => " + wrap(p.kids.at(1), 1);
  }
  return "";
}

std::string printCondition(const Condition& c) {
  const char* q = c.quant == Condition::Quant::Exists      ? "exists"
                  : c.quant == Condition::Quant::NotExists ? "~exists"
                                                           : "forall";
  return std::string(q) + " (" + printProp(c.prop) + ")";
}

std::string printCanonical(const Test& t) {
  std::string s = t.arch + " " + t.name + "\n";
  for (const auto& d : t.docs) s += "\"" + d + "\"\n";
  s += "{\n";
  for (const auto& l : t.locations) {
    s += "  ";
    if (!l.aliasOf.empty()) {
      s += l.name + " @ " + std::string(ptx::toString(l.aliasProxy)) + " aliases " + l.aliasOf + ";\n";
      continue;
    }
    std::string name = l.ownerCta >= 0 ? l.name + "@cta" + std::to_string(l.ownerCta) : l.name;
    if (l.isMbarrier)
      s += ".mbarrier " + name + " = " + std::to_string(l.mbarCount);
    else if (l.space == ptx::Space::SharedCta)
      s += ".shared " + name + " = " + std::to_string(l.init);
    else
      s += name + " = " + std::to_string(l.init);
    s += ";\n";
  }
  if (!t.clcPending.empty()) {
    s += "  .clc_pending ";
    for (size_t i = 0; i < t.clcPending.size(); ++i) s += (i ? ", " : "") + std::to_string(t.clcPending[i]);
    s += ";\n";
  }
  for (const auto& r : t.regInits) {
    s += "  " + std::to_string(r.thread) + ":" + r.reg + " = ";
    s += r.addressOf ? locRef(*r.addressOf) : std::to_string(r.value);
    s += ";\n";
  }
  s += "}\n";
  for (const auto& th : t.threads) {
    s += th.name + "@cta " + std::to_string(th.where.cta) + ",cluster " + std::to_string(th.where.cluster) + ",gpu " +
         std::to_string(th.where.gpu);
    if (th.where.warp >= 0) s += ",warp " + std::to_string(th.where.warp);
    s += ":\n";
    for (const auto& st : th.code) {
      if (!st.label.empty()) s += st.label + ":\n";
      if (st.instr) s += "    " + printInstr(*st.instr) + ";\n";
    }
  }
  if (!t.observed.empty()) {
    s += "locations [";
    for (const auto& term : t.observed) s += printTerm(term) + ";";
    s += "]\n";
  }
  s += printCondition(t.condition) + "\n";
  return s;
}

std::string testHash(const Test& t) { return md5Hex(printCanonical(t)); }

}  // namespace ptxmm::litmus
