#include "litmus/Printer.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <vector>

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

std::string wrap(const Prop& p, int minPrec, PropStyle style) {
  std::string s = printProp(p, style);
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
  // Operands joined by '|' where the row writes '|' (`elect.sync d|p, m`: no optional operands there).
  const std::vector<char> seps = ptx::operandSeparators(op);
  for (size_t i = 0; i < in.operands.size(); ++i) {
    const Operand& o = in.operands[i];
    // A dialect-only form keeps the Dat3M spelling of its location operands (bare `x`).
    bool bare = in.dialect && o.kind == Operand::Kind::Addr && o.baseReg.empty() && o.imm == 0 && o.elems.empty();
    const bool bar = i > 0 && i < seps.size() && seps[i] == '|' && in.operands.size() == seps.size();
    s += (bar ? "|" : i ? ", " : " ") + (bare ? locRef(o.loc) : printOperand(o));
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

std::string printProp(const Prop& p, PropStyle style) {
  // A right operand of the same operator: parenthesised in the canonical form only.
  const int same = style == PropStyle::Canonical ? 1 : 0;
  switch (p.kind) {
    case Prop::Kind::True: return "true";
    case Prop::Kind::False: return "false";
    case Prop::Kind::Eq: return printTerm(p.lhs) + "=" + printTerm(p.rhs);
    case Prop::Kind::Ne: return printTerm(p.lhs) + "!=" + printTerm(p.rhs);
    case Prop::Kind::Not: return "~" + wrap(p.kids.at(0), 4, style);
    case Prop::Kind::And: return wrap(p.kids.at(0), 3, style) + " /\\ " + wrap(p.kids.at(1), 3 + same, style);
    case Prop::Kind::Or: return wrap(p.kids.at(0), 2, style) + " \\/ " + wrap(p.kids.at(1), 2 + same, style);
    case Prop::Kind::Implies: return wrap(p.kids.at(0), 2, style) + " => " + wrap(p.kids.at(1), 1, style);
  }
  return "";
}

std::string printCondition(const Condition& c, PropStyle style) {
  const char* q = c.quant == Condition::Quant::Exists      ? "exists"
                  : c.quant == Condition::Quant::NotExists ? "~exists"
                                                           : "forall";
  return std::string(q) + " (" + printProp(c.prop, style) + ")";
}

std::string printCanonical(const Test& t) {
  std::string s = t.arch + " " + t.name + "\n";
  for (const auto& d : t.docs) s += "\"" + d + "\"\n";
  s += "{\n";
  for (const auto& l : t.locations) {
    s += "  ";
    if (!l.aliasOf.empty()) {
      s += l.name + " @ " + std::string(ptx::toString(l.aliasProxy)) + " aliases " + l.aliasDirect + ";\n";
      continue;
    }
    std::string name = l.ownerCta >= 0 ? l.name + "@cta" + std::to_string(l.ownerCta) : l.name;
    if (l.isMbarrier)
      s += ".mbarrier " + name + " = " + std::to_string(l.mbarCount);
    else if (l.isTmem)
      s += ".tmem " + name + " = " + std::to_string(l.init);
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
    if (th.where.grid > 0) s += ",grid " + std::to_string(th.where.grid);
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
  s += printCondition(t.condition, PropStyle::Canonical) + "\n";
  return s;
}

namespace {

// The 16 bytes of an MD5 digest (OCaml's `Digest.string`), from md5Hex's 32 hex digits.
std::string md5Raw(std::string_view data) {
  std::string hex = md5Hex(data), raw;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) raw += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return raw;
}

// Order of herd's MiscParser.location_compare: registers (thread, then name) before the other
// locations, those by name (bytes).
struct HashLoc {
  int kind = 2;  ///< 0 register, 1 ptxmm's `.clc_pending` (herd's symbolic-register slot), 2 memory location
  int thread = 0;
  std::string name;
  auto operator<=>(const HashLoc&) const = default;
  [[nodiscard]] std::string text() const { return kind == 0 ? std::to_string(thread) + ":" + name : name; }
};

bool isDefaultPlacement(const Test& t) {
  for (size_t i = 0; i < t.threads.size(); ++i) {
    const Placement& w = t.threads[i].where;
    if (w.cta != static_cast<int>(i) || w.cluster != static_cast<int>(i) || w.gpu != 0 || w.warp >= 0 || w.grid > 0)
      return false;
  }
  return true;
}

std::string threadHeader(const Thread& th) {
  std::string s = th.name + "@cta " + std::to_string(th.where.cta) + ",cluster " + std::to_string(th.where.cluster) +
                  ",gpu " + std::to_string(th.where.gpu);
  if (th.where.warp >= 0) s += ",warp " + std::to_string(th.where.warp);
  if (th.where.grid > 0) s += ",grid " + std::to_string(th.where.grid);
  return s;
}

void renameLabels(Operand& o, const std::map<std::string, std::string>& names) {
  if (o.kind == Operand::Kind::Label) o.name = names.at(o.name);
  for (auto& e : o.elems) renameLabels(e, names);
}

void collectLabels(const Operand& o, std::set<std::string>& labels) {
  if (o.kind == Operand::Kind::Label) labels.insert(o.name);
  for (const auto& e : o.elems) collectLabels(e, labels);
}

void observedOf(const Term& t, std::set<HashLoc>& out) {
  if (t.kind == Term::Kind::Reg) out.insert({0, t.thread, t.reg});
  if (t.kind == Term::Kind::Loc) out.insert({2, 0, locRef(t.loc)});
}

void observedOf(const Prop& p, std::set<HashLoc>& out) {
  if (p.kind == Prop::Kind::Eq || p.kind == Prop::Kind::Ne) {
    observedOf(p.lhs, out);
    observedOf(p.rhs, out);
  }
  for (const auto& k : p.kids) observedOf(k, out);
}

// Initial state (herd: digest_init): `loc=v` or `type loc=v`, sorted by location, joined by "; ".
std::string initText(const Test& t) {
  std::vector<std::pair<HashLoc, std::string>> init;
  for (const auto& l : t.locations) {
    std::string name = l.ownerCta >= 0 ? l.name + "@cta" + std::to_string(l.ownerCta) : l.name;
    std::string item;
    if (!l.aliasOf.empty())
      item = "@" + std::string(ptx::toString(l.aliasProxy)) + " " + name + "=" + l.aliasDirect;
    else if (l.isMbarrier)
      item = ".mbarrier " + name + "=" + std::to_string(l.mbarCount);
    else if (l.isTmem)
      item = ".tmem " + name + "=" + std::to_string(l.init);
    else if (l.space == ptx::Space::SharedCta)
      item = ".shared " + name + "=" + std::to_string(l.init);
    else
      item = name + "=" + std::to_string(l.init);
    init.push_back({{2, 0, name}, item});
  }
  if (!t.clcPending.empty()) {
    std::string v;
    for (size_t i = 0; i < t.clcPending.size(); ++i) v += (i ? "," : "") + std::to_string(t.clcPending[i]);
    init.push_back({{1, 0, ".clc_pending"}, ".clc_pending=" + v});
  }
  for (const auto& r : t.regInits)
    init.push_back({{0, r.thread, r.reg},
                    std::to_string(r.thread) + ":" + r.reg + "=" +
                        (r.addressOf ? locRef(*r.addressOf) : std::to_string(r.value))});
  std::stable_sort(init.begin(), init.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (size_t i = 0; i < init.size(); ++i) out += (i ? "; " : "") + init[i].second;
  return out;
}

// Code (herd: digest_code): labels renamed L00, L01, ... in the order of their names; one column per
// thread (a label is a cell of its own), laid out as herd's Misc.string_of_prog table.
std::string codeText(const Test& t) {
  std::set<std::string> labels;
  for (const auto& th : t.threads)
    for (const auto& st : th.code) {
      if (!st.label.empty()) labels.insert(st.label);
      if (st.instr)
        for (const auto& o : st.instr->operands) collectLabels(o, labels);
    }
  std::map<std::string, std::string> names;
  for (const auto& l : labels) {
    std::string n = std::to_string(names.size());
    names[l] = "L" + std::string(n.size() < 2 ? 2 - n.size() : 0, '0') + n;  // herd: "L%02i"
  }
  std::vector<std::vector<std::string>> columns;
  for (const auto& th : t.threads) {
    std::vector<std::string> col;
    for (const auto& st : th.code) {
      if (!st.label.empty()) col.push_back(names.at(st.label) + ":");
      if (!st.instr) continue;
      Instr in = *st.instr;
      for (auto& o : in.operands) renameLabels(o, names);
      col.push_back(printInstr(in));
    }
    columns.push_back(std::move(col));
  }
  std::vector<size_t> width;
  size_t rows = 0;
  for (const auto& col : columns) {
    size_t w = 0;
    for (const auto& c : col) w = std::max(w, c.size());
    width.push_back(w);
    rows = std::max(rows, col.size());
  }
  std::string out;
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < columns.size(); ++c) {
      std::string cell = r < columns[c].size() ? columns[c][r] : "";
      out += (c ? "|" : "") + (" " + cell + std::string(width[c] - cell.size(), ' ') + " ");
    }
    out += ";\n";
  }
  return out;
}

}  // namespace

HashInput hashInput(const Test& t) {
  HashInput h;
  // Meta-data (herd: the info keys MemoryType/MT, as `key=value`; none → no digest). ptxmm's one
  // key: the thread placement, unless every thread Pn has the placement of a bare `Pn` header.
  if (!isDefaultPlacement(t)) {
    std::string v;
    for (const auto& th : t.threads) v += (v.empty() ? "" : " | ") + threadHeader(th);
    h.info = "placement=" + v;
  }
  h.init = initText(t);
  h.code = codeText(t);
  // Observed locations (herd: digest_observed): those of `locations [...]` and of the condition.
  std::set<HashLoc> observed;
  for (const auto& term : t.observed) observedOf(term, observed);
  observedOf(t.condition.prop, observed);
  for (const auto& l : observed) h.observed += (h.observed.empty() ? "" : "; ") + l.text();
  return h;
}

std::string testHash(const Test& t) {
  HashInput h = hashInput(t);
  return md5Hex((h.info.empty() ? "" : md5Raw(h.info)) + md5Raw(h.init) + md5Raw(h.code) + md5Raw(h.observed));
}

}  // namespace ptxmm::litmus
