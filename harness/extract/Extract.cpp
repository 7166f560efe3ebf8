#include "extract/Extract.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include "ptx/Ops.hpp"

namespace ptxmm::extract {

const Site* ExtractedTest::site(int litmusLine) const {
  auto it = sites.find(litmusLine);
  return it == sites.end() ? nullptr : &it->second;
}

bool ExtractedTest::disjoint(int a, int b, const std::string& location) const {
  auto fa = footprint.find(a), fb = footprint.find(b);
  if (fa == footprint.end() || fb == footprint.end()) return false;
  auto la = fa->second.find(location), lb = fb->second.find(location);
  if (la == fa->second.end() || lb == fb->second.end() || la->second.empty() || lb->second.empty()) return false;
  for (const auto& x : la->second)
    if (lb->second.count(x)) return false;
  return true;
}

namespace {

// ---------------------------------------------------------------------------------------------------
// Values of the abstract execution

struct Val {
  enum class K : uint8_t { Unknown, Int, Addr, Wait, Loaded };
  K k = K::Unknown;
  int64_t v = 0;         ///< Int: value; Addr: byte offset
  int base = -1;         ///< Addr: index of the base; Wait: index of the wait in the thread's record
  int cta = -1;          ///< Addr: CTA rank of a mapa'd shared::cluster address (-1: own)
  int64_t t = 0, f = 0;  ///< Wait: the value when the wait succeeded / failed
  std::string reg;       ///< Loaded: the litmus register holding it
  int origin = 0;        ///< Unknown: PTX line it comes from
  std::string why;       ///< Unknown: why it is unknown

  static Val num(int64_t x) {
    Val r;
    r.k = K::Int;
    r.v = x;
    return r;
  }
  static Val unknown(int line, std::string why) {
    Val r;
    r.origin = line;
    r.why = std::move(why);
    return r;
  }
  static Val addr(int base, int64_t off, int cta = -1) {
    Val r;
    r.k = K::Addr;
    r.base = base;
    r.v = off;
    r.cta = cta;
    return r;
  }
};

/// A base address: a shared variable, a kernel pointer (global), a tensor map, a `.local` variable or a
/// `.param` of the parameter space.
struct Base {
  enum class K : uint8_t { Shared, Global, TensorMap, Local, Param };
  K k = K::Shared;
  std::string sym;   ///< PTX name
  std::string name;  ///< litmus-friendly name
  int64_t size = 0;
};

/// An operand of a recorded instruction.
struct Opnd {
  enum class K : uint8_t { Reg, Imm, Addr, TMap, Vec, Sink, Raw } k = K::Imm;
  std::string reg;  ///< Reg: litmus register; Raw: text
  int64_t imm = 0;  ///< Imm; Addr: offset
  int base = -1;    ///< Addr, TMap
  int cta = -1;     ///< Addr: mapa'd CTA rank (-1 own)
  bool mbar = false;
  std::vector<Opnd> elems;  ///< Vec; TMap: coordinates
};

/// One modelled instruction a thread executed.
struct Kept {
  const PtxStmt* stmt = nullptr;
  std::string pseudo;  ///< a litmus line of the extractor's own (a branch on a loaded predicate, its labels)
  ptx::OpId op = ptx::OpId::Mov;
  std::string opcode;
  std::string guardReg;  ///< litmus guard (rare: a guard on a loaded predicate is refused)
  std::vector<Opnd> ops;
  bool waitLoop = false;
  size_t pc = 0;                 ///< statement index (waits: the retry target)
  std::vector<size_t> framePcs;  ///< the statement of each frame (outermost first): a wait in a called helper
                                 ///< is retried by calling the helper again
};

/// A thread's record.
struct Trace {
  int cta = 0;
  int tid = 0;
  std::vector<Kept> kept;
};

struct Failure {
  int line = 0;
  int col = 0;
  std::string msg;
};

[[noreturn]] void fail(const PtxStmt& s, const std::string& msg) { throw Failure{s.line, s.col, msg}; }

std::vector<std::string> split(const std::string& s, char c) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s) {
    if (ch == c) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  out.push_back(cur);
  return out;
}

/// The row of PtxOps.def an opcode spells: the longest dotted prefix that is a mnemonic or an alias.
const ptx::OpInfo* findRow(const std::string& opcode) {
  auto parts = split(opcode, '.');
  for (size_t n = parts.size(); n >= 1; --n) {
    std::string prefix = parts[0];
    for (size_t i = 1; i < n; ++i) prefix += "." + parts[i];
    if (const auto* op = ptx::findOp(prefix)) return op;
    if (const auto* op = ptx::findAlias(prefix)) return op;
  }
  return nullptr;
}

const std::set<std::string>& typeNames() {
  static const std::set<std::string> t = {"b8",  "b16", "b32", "b64", "b128", "u8",  "u16",  "u32",   "u64", "s8",
                                          "s16", "s32", "s64", "f16", "f32",  "f64", "pred", "f16x2", "bf16"};
  return t;
}

struct IntType {
  int bits = 64;
  bool isSigned = false;
  bool isFloat = false;
  bool isPred = false;
};

IntType typeOf(const std::vector<std::string>& parts) {
  IntType t;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (!typeNames().count(*it)) continue;
    const std::string& n = *it;
    if (n == "pred") {
      t.isPred = true;
      t.bits = 1;
      return t;
    }
    t.isFloat = n[0] == 'f' || n.starts_with("bf");
    t.isSigned = n[0] == 's';
    t.bits = std::atoi(n.c_str() + (n.starts_with("bf") ? 2 : 1));
    if (t.bits == 0) t.bits = 64;
    return t;
  }
  return t;
}

int64_t norm(int64_t v, const IntType& t) {
  if (t.isPred) return v != 0 ? 1 : 0;
  switch (t.bits) {
    case 8: return t.isSigned ? static_cast<int8_t>(v) : static_cast<uint8_t>(v);
    case 16: return t.isSigned ? static_cast<int16_t>(v) : static_cast<uint16_t>(v);
    case 32: return t.isSigned ? static_cast<int32_t>(v) : static_cast<uint32_t>(v);
    default: return v;
  }
}

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])) != 0) out = "v" + out;
  return out;
}

/// `_ZZ4pipe14CUtensorMap_stPfiE3buf` → `buf` (a function-local static: the name after the last `E<len>`).
std::string shortName(const std::string& sym) {
  if (sym.starts_with("_ZZ")) {
    size_t e = sym.rfind('E');
    if (e != std::string::npos && e + 1 < sym.size()) {
      size_t i = e + 1;
      size_t len = 0;
      while (i < sym.size() && std::isdigit(static_cast<unsigned char>(sym[i])) != 0) len = len * 10 + (sym[i++] - '0');
      if (len > 0 && i + len == sym.size()) return sanitize(sym.substr(i));
    }
  }
  // `kernel_param_3` → `param3`
  size_t p = sym.rfind("_param_");
  if (p != std::string::npos) return "param" + sym.substr(p + 7);
  return sanitize(sym);
}

// ---------------------------------------------------------------------------------------------------
// The kernel being extracted

struct Kernel {
  const PtxModule& mod;
  const PtxFunction& fn;
  const ExtractOptions& opt;
  std::vector<Base> bases;
  std::map<std::string, int> baseOf;  ///< PTX symbol → base
  int dims[3] = {1, 1, 1};
  int nthreads = 1;
  int ctas = 1;
  int64_t intParam = 4;
  size_t totalSteps = 0;

  Kernel(const PtxModule& m, const PtxFunction& f, const ExtractOptions& o) : mod(m), fn(f), opt(o) {}

  int addBase(Base::K k, const std::string& sym, int64_t size) {
    auto it = baseOf.find(sym);
    if (it != baseOf.end()) return it->second;
    Base b;
    b.k = k;
    b.sym = sym;
    b.name = shortName(sym);
    b.size = size;
    bases.push_back(b);
    return baseOf[sym] = static_cast<int>(bases.size()) - 1;
  }
};

struct Frame {
  const PtxFunction* fn = nullptr;
  size_t pc = 0;
  std::unordered_map<std::string, Val> regs;
  std::map<std::string, std::map<int64_t, Val>> params;  ///< parameter space of this frame
  std::vector<std::string> retInto;                      ///< caller's names of the results
  std::map<std::string, size_t> labels;
};

class Thread {
 public:
  Thread(Kernel& k, int cta, int tid) : k_(k) {
    trace_.cta = cta;
    trace_.tid = tid;
  }

  Trace run() {
    push(k_.fn, {});
    size_t steps = 0;
    while (true) {
      if (stack_.empty()) {
        // The end of a path: the other side of a pending branch on a loaded predicate runs next.
        if (pending_.empty()) break;
        pseudo(pending_.back().branch, "bra END;");
        Saved sv = std::move(pending_.back());
        pending_.pop_back();
        pseudo(sv.branch, sv.label + ":");
        stack_ = std::move(sv.stack);
        local_ = std::move(sv.local);
        laps_ = std::move(sv.laps);
        continue;
      }
      Frame& fr = stack_.back();
      if (fr.pc >= fr.fn->body.size()) {
        ret();
        continue;
      }
      const PtxStmt& s = fr.fn->body[fr.pc];
      if (++k_.totalSteps > k_.opt.maxTotalSteps)
        fail(s, fmt::format("the kernel's threads execute more than {} instructions in all (lower --iterations or "
                            "--block, or give the loop bounds with --param)",
                            k_.opt.maxTotalSteps));
      if (++steps > k_.opt.maxSteps)
        fail(s, fmt::format("thread {} of CTA {} executes more than {} instructions: a loop the extractor cannot "
                            "bound (give the loop bound with --param or --iterations)",
                            trace_.tid, trace_.cta, k_.opt.maxSteps));
      step(fr, s);
    }
    if (forked_) pseudo(nullptr, "END:");
    return std::move(trace_);
  }

 private:
  Kernel& k_;
  Trace trace_;
  std::vector<Frame> stack_;
  int nextReg_ = 0;
  std::map<std::pair<int, int64_t>, Val> local_;  ///< .local memory (base, offset)
  /// The taken side of a branch on a loaded predicate, run after the fall-through side ends.
  struct Saved {
    std::vector<Frame> stack;
    std::map<std::pair<int, int64_t>, Val> local;
    std::map<const PtxStmt*, int64_t> laps;
    std::string label;
    const PtxStmt* branch = nullptr;
  };
  std::vector<Saved> pending_;
  std::map<const PtxStmt*, int64_t> laps_;  ///< forks per branch on this path
  int nextLabel_ = 0;
  size_t forks_ = 0;
  bool forked_ = false;

  void pseudo(const PtxStmt* s, std::string text) {
    Kept k;
    k.stmt = s != nullptr ? s : (trace_.kept.empty() ? nullptr : trace_.kept.back().stmt);
    k.op = ptx::OpId::Bra;
    k.pseudo = std::move(text);
    if (k.stmt != nullptr) trace_.kept.push_back(std::move(k));
  }

  /// `@p bra L` where p is a predicate a modelled instruction returned (query_cancel, ...): both sides are
  /// followed, the litmus thread branches on the predicate. A loop whose exit depends on it runs
  /// `--iterations` laps; the path that would run another lap ends there.
  void forkBranch(Frame& fr, const PtxStmt& s, const Val& g) {
    bool takenTrue = (g.t != 0) != s.guardNeg;
    auto it = fr.labels.find(s.operands.back());
    if (it == fr.labels.end()) fail(s, fmt::format("branch to an unknown label {}", s.operands.back()));
    if (++laps_[&s] > k_.intParam) {
      stack_.clear();
      return;
    }
    if (pending_.size() >= 16) fail(s, "more than 16 nested branches on loaded values");
    if (++forks_ > k_.opt.maxForks)
      fail(s, fmt::format("more than {} branches on loaded values followed both ways (lower --iterations)",
                          k_.opt.maxForks));
    forked_ = true;
    std::string label = fmt::format("B{}", nextLabel_++);
    pseudo(&s, fmt::format("@{}{} bra {};", takenTrue ? "" : "!", g.reg, label));
    Saved sv;
    sv.stack = stack_;
    sv.stack.back().pc = it->second;
    sv.local = local_;
    sv.laps = laps_;
    sv.label = label;
    sv.branch = &s;
    pending_.push_back(std::move(sv));
    ++fr.pc;
  }

  /// `@p bra L` forward on a value the extractor does not know, over code with no modelled instruction
  /// (`if (i < n) data[i] *= alpha;`): both sides meet at L; the registers the skipped code writes are unknown.
  bool skipSyncFree(Frame& fr, const PtxStmt& s) {
    auto it = fr.labels.find(s.operands.back());
    if (it == fr.labels.end() || it->second <= fr.pc) return false;
    size_t to = it->second;
    for (size_t i = fr.pc + 1; i < to; ++i) {
      const PtxStmt& t = fr.fn->body[i];
      if (!t.label.empty()) continue;
      auto parts = split(t.opcode, '.');
      const std::string& h = parts[0];
      if (h == "call" || h == "ret" || h == "exit" || h == "trap" || h == "brx" || h == "bar" || h == "barrier")
        return false;
      if (h == "bra") {
        auto l = fr.labels.find(t.operands.empty() ? "" : t.operands.back());
        if (l == fr.labels.end() || l->second <= fr.pc || l->second > to) return false;
        continue;
      }
      bool mem =
          std::any_of(t.operands.begin(), t.operands.end(), [](const std::string& o) { return o.starts_with("["); });
      if (mem) {
        bool strong = std::any_of(parts.begin(), parts.end(), [](const std::string& p) {
          return p == "relaxed" || p == "acquire" || p == "release" || p == "volatile" || p == "sc";
        });
        bool global = std::find(parts.begin(), parts.end(), "global") != parts.end();
        if (!((h == "ld" || h == "st") && global && !strong)) return false;
        continue;
      }
      if (const auto* row = findRow(t.opcode)) {
        auto role = ptx::roleOf(row->family);
        if (role != ptx::FamilyRole::Local && role != ptx::FamilyRole::Control && h != "elect" && h != "mapa")
          return false;
      }
    }
    for (size_t i = fr.pc + 1; i < to; ++i) {
      const PtxStmt& t = fr.fn->body[i];
      if (!t.label.empty() || t.operands.empty() || t.opcode.starts_with("st") || t.opcode.starts_with("bra")) continue;
      std::string d = t.operands[0];
      if (d.starts_with("{")) d = d.substr(1, d.size() - 2);
      for (const auto& part : split(d, d.find('|') != std::string::npos ? '|' : ','))
        set(fr, part, Val::unknown(t.line, "a register written on one side of a branch on an unknown value"));
    }
    fr.pc = to;
    return true;
  }

  void push(const PtxFunction& f, std::vector<std::string> retInto) {
    if (static_cast<int>(stack_.size()) >= k_.opt.maxCallDepth)
      throw Failure{f.line, 1,
                    fmt::format("calls nested more than {} deep (recursion is refused)", k_.opt.maxCallDepth)};
    Frame fr;
    fr.fn = &f;
    fr.retInto = std::move(retInto);
    for (size_t i = 0; i < f.body.size(); ++i)
      if (!f.body[i].label.empty()) fr.labels[f.body[i].label] = i;
    for (const auto& v : f.vars) {
      Base::K kind = v.space == "shared" ? Base::K::Shared : v.space == "local" ? Base::K::Local : Base::K::Global;
      k_.addBase(kind, v.name, v.size);
    }
    stack_.push_back(std::move(fr));
  }

  void ret() {
    Frame done = std::move(stack_.back());
    stack_.pop_back();
    if (stack_.empty()) return;
    Frame& caller = stack_.back();
    for (size_t i = 0; i < done.retInto.size() && i < done.fn->results.size(); ++i)
      caller.params[done.retInto[i]] = done.params[done.fn->results[i].name];
    ++caller.pc;
  }

  // ---- operand evaluation ----

  std::optional<int64_t> special(const std::string& n) const {
    int t = trace_.tid;
    int x = t % k_.dims[0];
    int y = (t / k_.dims[0]) % k_.dims[1];
    int z = t / (k_.dims[0] * k_.dims[1]);
    static const std::map<std::string, int> sel = {{"x", 0}, {"y", 1}, {"z", 2}};
    auto comp = [&](const std::string& pre) -> int {
      if (!n.starts_with(pre)) return -1;
      std::string rest = n.substr(pre.size());
      if (rest.empty()) return 0;
      if (rest.size() == 2 && rest[0] == '.' && sel.count(rest.substr(1))) return sel.at(rest.substr(1));
      return -1;
    };
    int c = -1;
    if ((c = comp("%tid")) >= 0) return c == 0 ? x : c == 1 ? y : z;
    if ((c = comp("%ntid")) >= 0) return k_.dims[c];
    if ((c = comp("%ctaid")) >= 0) return c == 0 ? trace_.cta : 0;
    if ((c = comp("%nctaid")) >= 0) return c == 0 ? k_.ctas : 1;
    if ((c = comp("%cluster_ctaid")) >= 0) return c == 0 ? trace_.cta : 0;
    if ((c = comp("%cluster_nctaid")) >= 0) return c == 0 ? k_.ctas : 1;
    if ((c = comp("%clusterid")) >= 0) return 0;
    if ((c = comp("%nclusterid")) >= 0) return 1;
    if (n == "%cluster_ctarank") return trace_.cta;
    if (n == "%cluster_nctarank") return k_.ctas;
    if (n == "%is_explicit_cluster") return k_.ctas > 1 ? 1 : 0;
    if (n == "%laneid") return t % 32;
    if (n == "%warpid") return t / 32;
    if (n == "%nwarpid") return (k_.nthreads + 31) / 32;
    if (n == "%smid" || n == "%gridid") return 0;
    if (n == "%lanemask_eq") return int64_t{1} << (t % 32);
    if (n == "%lanemask_lt") return (int64_t{1} << (t % 32)) - 1;
    if (n == "%lanemask_le") return (int64_t{1} << (t % 32 + 1)) - 1;
    return std::nullopt;
  }

  static std::optional<int64_t> literal(const std::string& s) {
    if (s.empty()) return std::nullopt;
    size_t i = s[0] == '-' ? 1 : 0;
    if (i >= s.size() || std::isdigit(static_cast<unsigned char>(s[i])) == 0) return std::nullopt;
    if (s.size() > i + 1 && s[i] == '0' && (s[i + 1] == 'f' || s[i + 1] == 'F' || s[i + 1] == 'd' || s[i + 1] == 'D'))
      return std::nullopt;  // float bit pattern: not an integer the extractor reasons about
    try {
      size_t pos = 0;
      uint64_t u = 0;
      if (s.size() > i + 1 && (s[i + 1] == 'x' || s[i + 1] == 'X'))
        u = std::stoull(s.substr(i + 2), &pos, 16), pos += i + 2;
      else
        u = std::stoull(s.substr(i), &pos, 10), pos += i;
      while (pos < s.size() && (s[pos] == 'U' || s[pos] == 'u')) ++pos;
      if (pos != s.size()) return std::nullopt;
      auto v = static_cast<int64_t>(u);
      return i == 1 ? -v : v;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

  int paramIndex(const std::string& name) const {
    for (size_t i = 0; i < k_.fn.params.size(); ++i)
      if (k_.fn.params[i].name == name) return static_cast<int>(i);
    return -1;
  }

  /// The value of a kernel parameter (its first bytes): a given value, a pointer (global base), a tensor map.
  Val kernelParam(int idx, int64_t off, const PtxStmt& s) {
    const PtxParam& p = k_.fn.params[idx];
    for (const auto& key : {p.name, std::to_string(idx), shortName(p.name)}) {
      auto it = k_.opt.params.find(key);
      if (it != k_.opt.params.end()) return Val::num(it->second);
    }
    if (off != 0) return Val::unknown(s.line, fmt::format("bytes {} of parameter {}", off, p.name));
    if (p.size == 8 && p.type != "f64") {
      int b = k_.addBase(Base::K::Global, "*" + p.name, 0);
      k_.bases[static_cast<size_t>(b)].name = shortName(p.name);
      return Val::addr(b, 0);
    }
    if (p.size > 8) return Val::unknown(s.line, fmt::format("parameter {} is a {}-byte object", p.name, p.size));
    if (p.type.starts_with("f")) return Val::unknown(s.line, fmt::format("floating-point parameter {}", p.name));
    return Val::num(k_.intParam);
  }

  Val read(Frame& fr, const std::string& op, const PtxStmt& s) {
    if (auto lit = literal(op)) return Val::num(*lit);
    if (op.starts_with("0f") || op.starts_with("0F") || op.starts_with("0d") || op.starts_with("0D"))
      return Val::unknown(s.line, "a floating-point constant");
    if (auto sp = special(op)) return Val::num(*sp);
    auto it = fr.regs.find(op);
    if (it != fr.regs.end()) return it->second;
    // A symbol: a variable's address, a kernel parameter's address in the parameter space.
    auto plus = op.find('+');
    std::string sym = plus == std::string::npos ? op : op.substr(0, plus);
    int64_t off = 0;
    if (plus != std::string::npos) {
      auto o = literal(op.substr(plus + 1));
      if (!o) return Val::unknown(s.line, fmt::format("address expression '{}'", op));
      off = *o;
    }
    auto b = k_.baseOf.find(sym);
    if (b != k_.baseOf.end()) return Val::addr(b->second, off);
    for (const auto& v : k_.mod.vars)
      if (v.name == sym) {
        Base::K kind = v.space == "shared" ? Base::K::Shared : v.space == "local" ? Base::K::Local : Base::K::Global;
        return Val::addr(k_.addBase(kind, v.name, v.size), off);
      }
    // A kernel parameter's name (in the kernel's own frame): a 128-byte or 64-aligned object is a tensor map.
    if (int idx = stack_.size() == 1 ? paramIndex(sym) : -1; idx >= 0) {
      const PtxParam& p = k_.fn.params[static_cast<size_t>(idx)];
      if (p.size == 128 || (p.size > 8 && p.align >= 64))
        return Val::addr(k_.addBase(Base::K::TensorMap, p.name, p.size), off);
      return Val::addr(k_.addBase(Base::K::Param, p.name, p.size), off);
    }
    if (fr.params.count(sym) ||
        std::find(fr.fn->callParams.begin(), fr.fn->callParams.end(), sym) != fr.fn->callParams.end())
      return Val::addr(k_.addBase(Base::K::Param, "frame:" + sym, 0), off);
    for (const auto& p : fr.fn->params)
      if (p.name == sym) return Val::addr(k_.addBase(Base::K::Param, "frame:" + sym, 0), off);
    for (const auto& p : fr.fn->results)
      if (p.name == sym) return Val::addr(k_.addBase(Base::K::Param, "frame:" + sym, 0), off);
    return Val::unknown(s.line, fmt::format("register {} is never written", op));
  }

  /// `[X]`, `[X+8]`, `[X+-8]` → the address; `[X, {c0, c1}]` → the tensor map and its coordinates.
  Val address(Frame& fr, const std::string& op, const PtxStmt& s, std::vector<Val>* coords = nullptr) {
    if (op.size() < 2 || op.front() != '[' || op.back() != ']')
      fail(s, fmt::format("expected an address, found '{}'", op));
    std::string in = op.substr(1, op.size() - 2);
    size_t comma = in.find(',');
    if (comma != std::string::npos) {
      std::string rest = in.substr(comma + 1);
      in = in.substr(0, comma);
      if (coords && rest.size() >= 2 && rest.front() == '{' && rest.back() == '}')
        for (const auto& c : split(rest.substr(1, rest.size() - 2), ',')) coords->push_back(read(fr, c, s));
    }
    int64_t off = 0;
    size_t plus = in.find('+');
    std::string base = in;
    if (plus != std::string::npos) {
      base = in.substr(0, plus);
      auto o = literal(in.substr(plus + 1));
      if (!o) fail(s, fmt::format("address offset '{}' is not an integer", in.substr(plus + 1)));
      off = *o;
    }
    Val v = read(fr, base, s);
    if (v.k == Val::K::Int && v.v == 0 && literal(base)) return v;  // absolute address: refused by the caller
    if (v.k == Val::K::Addr) v.v += off;
    return v;
  }

  [[noreturn]] void unresolved(const PtxStmt& s, const Val& v, const std::string& what) {
    std::string why;
    if (v.k == Val::K::Unknown)
      why = v.origin > 0 ? fmt::format("{} (line {})", v.why, v.origin) : v.why;
    else if (v.k == Val::K::Loaded)
      why = "a value loaded from memory";
    else if (v.k == Val::K::Int)
      why = fmt::format("the integer {}, not an address of a variable or parameter", v.v);
    else if (v.k == Val::K::Wait)
      why = "the result of an mbarrier wait";
    else
      why = "an address";
    fail(s, fmt::format("{} of `{}` cannot be resolved: it is {}", what, s.text, why));
  }

  // ---- one statement ----

  void set(Frame& fr, const std::string& reg, Val v) {
    if (reg == "_" || reg.empty()) return;
    fr.regs[reg] = std::move(v);
  }

  static Val binop(const std::string& head, const Val& a, const Val& b, const IntType& t, int line) {
    using K = Val::K;
    auto arith = [&](int64_t x, int64_t y) -> std::optional<int64_t> {
      uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
      if (head == "add") return norm(static_cast<int64_t>(ux + uy), t);
      if (head == "sub") return norm(static_cast<int64_t>(ux - uy), t);
      if (head == "mul") return norm(static_cast<int64_t>(ux * uy), t);
      if (head == "and") return norm(x & y, t);
      if (head == "or") return norm(x | y, t);
      if (head == "xor") return norm(x ^ y, t);
      // The shift amount is unsigned (PTX ISA shl/shr: amounts past the width clamp): -7 is a huge shift.
      if (head == "shl") return uy >= 64 ? 0 : norm(static_cast<int64_t>(ux << uy), t);
      if (head == "shr") {
        if (uy >= 64) return t.isSigned && x < 0 ? -1 : 0;
        return t.isSigned ? norm(x >> uy, t) : norm(static_cast<int64_t>(static_cast<uint64_t>(norm(x, t)) >> uy), t);
      }
      if (head == "min") return t.isSigned ? std::min(x, y) : static_cast<int64_t>(std::min(ux, uy));
      if (head == "max") return t.isSigned ? std::max(x, y) : static_cast<int64_t>(std::max(ux, uy));
      if (head == "div")
        return y == 0 ? std::nullopt : std::optional(norm(t.isSigned ? x / y : static_cast<int64_t>(ux / uy), t));
      if (head == "rem")
        return y == 0 ? std::nullopt : std::optional(norm(t.isSigned ? x % y : static_cast<int64_t>(ux % uy), t));
      return std::nullopt;
    };
    if (t.isFloat) return Val::unknown(line, "a floating-point value");
    if (a.k == K::Int && b.k == K::Int) {
      auto r = arith(a.v, b.v);
      return r ? Val::num(*r) : Val::unknown(line, fmt::format("{} by zero", head));
    }
    if (a.k == K::Addr && b.k == K::Int && (head == "add" || head == "sub"))
      return Val::addr(a.base, head == "add" ? a.v + b.v : a.v - b.v, a.cta);
    if (a.k == K::Int && b.k == K::Addr && head == "add") return Val::addr(b.base, a.v + b.v, b.cta);
    if (a.k == K::Addr && b.k == K::Addr && head == "sub" && a.base == b.base) return Val::num(a.v - b.v);
    // A wait's result combined with a constant stays a function of the wait's success.
    if ((a.k == K::Wait && b.k == K::Int) || (a.k == K::Int && b.k == K::Wait)) {
      const Val& w = a.k == K::Wait ? a : b;
      auto rt = a.k == K::Wait ? arith(a.t, b.v) : arith(a.v, b.t);
      auto rf = a.k == K::Wait ? arith(a.f, b.v) : arith(a.v, b.f);
      if (rt && rf) {
        Val r = w;
        r.t = *rt;
        r.f = *rf;
        return r;
      }
    }
    if (a.k == K::Unknown) return a;
    if (b.k == K::Unknown) return b;
    return Val::unknown(line, fmt::format("`{}` of {} and {}", head,
                                          a.k == K::Loaded || b.k == K::Loaded ? "a value loaded from memory"
                                                                               : "values the extractor does not track",
                                          ""));
  }

  static std::optional<bool> compare(const std::string& cmp, int64_t x, int64_t y, const IntType& t) {
    uint64_t ux = static_cast<uint64_t>(norm(x, t)), uy = static_cast<uint64_t>(norm(y, t));
    int64_t sx = norm(x, t), sy = norm(y, t);
    if (cmp == "eq") return x == y;
    if (cmp == "ne") return x != y;
    bool s = t.isSigned;
    if (cmp == "lt") return s ? sx < sy : ux < uy;
    if (cmp == "le") return s ? sx <= sy : ux <= uy;
    if (cmp == "gt") return s ? sx > sy : ux > uy;
    if (cmp == "ge") return s ? sx >= sy : ux >= uy;
    if (cmp == "lo") return ux < uy;
    if (cmp == "ls") return ux <= uy;
    if (cmp == "hi") return ux > uy;
    if (cmp == "hs") return ux >= uy;
    return std::nullopt;
  }

  /// Evaluates a register-only instruction; false if `s` is not one.
  bool local(Frame& fr, const PtxStmt& s) {
    auto parts = split(s.opcode, '.');
    const std::string& head = parts[0];
    IntType t = typeOf(parts);
    const auto& o = s.operands;
    auto need = [&](size_t n) {
      if (o.size() < n) fail(s, fmt::format("`{}` needs {} operands", s.opcode, n));
    };
    auto rd = [&](size_t i) { return read(fr, o[i], s); };
    if (head == "mov" || head == "cvta" || head == "cvt" || head == "cvta.to") {
      need(2);
      Val v = o[1].starts_with("{") ? Val::unknown(s.line, "a packed vector") : rd(1);
      if (o[1].starts_with("{") && o[1].size() > 2) {
        // Packing the halves of one loaded value (a b128 register from a 16-byte load) gives that value.
        auto es = split(o[1].substr(1, o[1].size() - 2), ',');
        Val first = read(fr, es[0], s);
        bool same = first.k == Val::K::Loaded;
        for (const auto& e : es) {
          Val x = read(fr, e, s);
          same = same && x.k == Val::K::Loaded && x.reg == first.reg;
        }
        if (same) v = first;
      }
      if (head == "cvt" && v.k == Val::K::Int) {
        if (t.isFloat || std::any_of(parts.begin() + 1, parts.end(), [](const std::string& p) {
              return p.starts_with("rn") || p.starts_with("rz") || p.starts_with("rm") || p.starts_with("rp") ||
                     p == "sat";
            }))
          v = Val::unknown(s.line, "a conversion of a floating-point value");
        else
          v.v = norm(v.v, typeOf({parts.size() >= 3 ? parts[parts.size() - 1] : parts.back()}));
      }
      if (o[0].starts_with("{")) return true;  // unpacking a vector: the parts are not tracked
      set(fr, o[0], v);
      return true;
    }
    static const std::set<std::string> bin = {"add", "sub", "mul", "and", "or",  "xor",
                                              "shl", "shr", "min", "max", "div", "rem"};
    if (bin.count(head)) {
      need(3);
      Val a = rd(1), b = rd(2);
      IntType tt = t;
      bool wide = std::find(parts.begin(), parts.end(), "wide") != parts.end();
      bool hi = std::find(parts.begin(), parts.end(), "hi") != parts.end();
      if (hi) {
        set(fr, o[0], Val::unknown(s.line, "the high half of a product"));
        return true;
      }
      if (wide) {
        if (a.k == Val::K::Int) a.v = norm(a.v, t);
        if (b.k == Val::K::Int) b.v = norm(b.v, t);
        tt.bits = 64;
      }
      set(fr, o[0], binop(head, a, b, tt, s.line));
      return true;
    }
    if (head == "mad") {
      need(4);
      Val a = rd(1), b = rd(2), c = rd(3);
      IntType tt = t;
      if (std::find(parts.begin(), parts.end(), "hi") != parts.end()) {
        set(fr, o[0], Val::unknown(s.line, "the high half of a product"));
        return true;
      }
      if (std::find(parts.begin(), parts.end(), "wide") != parts.end()) tt.bits = 64;
      set(fr, o[0], binop("add", binop("mul", a, b, tt, s.line), c, tt, s.line));
      return true;
    }
    if (head == "not" || head == "neg" || head == "abs" || head == "cnot") {
      need(2);
      Val a = rd(1);
      auto f1 = [&](int64_t x) -> int64_t {
        if (head == "not") return t.isPred ? (x != 0 ? 0 : 1) : norm(~x, t);
        if (head == "cnot") return x == 0 ? 1 : 0;
        if (head == "neg") return norm(-x, t);
        return norm(x < 0 ? -x : x, t);
      };
      if (t.isFloat) a = Val::unknown(s.line, "a floating-point value");
      if (a.k == Val::K::Int)
        a.v = f1(a.v);
      else if (a.k == Val::K::Wait)
        a.t = f1(a.t), a.f = f1(a.f);
      else if (a.k != Val::K::Unknown)
        a = Val::unknown(s.line, fmt::format("`{}` of an untracked value", head));
      set(fr, o[0], a);
      return true;
    }
    if (head == "selp") {
      need(4);
      Val a = rd(1), b = rd(2), p = rd(3);
      if (p.k == Val::K::Int) {
        set(fr, o[0], p.v != 0 ? a : b);
      } else if (p.k == Val::K::Wait && a.k == Val::K::Int && b.k == Val::K::Int) {
        Val r = p;
        r.t = p.t != 0 ? a.v : b.v;
        r.f = p.f != 0 ? a.v : b.v;
        set(fr, o[0], r);
      } else {
        set(fr, o[0], p.k == Val::K::Unknown ? p : Val::unknown(s.line, "a selection on a value loaded from memory"));
      }
      return true;
    }
    if (head == "setp" || head == "set") {
      need(3);
      if (parts.size() < 2) fail(s, "setp without a comparison");
      const std::string& cmp = parts[1];
      std::string dst = o[0];
      size_t bar = dst.find('|');
      std::string dst2;
      if (bar != std::string::npos) {
        dst2 = dst.substr(bar + 1);
        dst = dst.substr(0, bar);
      }
      Val a = rd(1), b = rd(2);
      Val r;
      bool isFloatCmp = t.isFloat;
      if (!isFloatCmp && a.k == Val::K::Int && b.k == Val::K::Int) {
        auto c = compare(cmp, a.v, b.v, t);
        r = c ? Val::num(*c ? 1 : 0) : Val::unknown(s.line, fmt::format("comparison {}", cmp));
      } else if (!isFloatCmp && a.k == Val::K::Wait && b.k == Val::K::Int) {
        auto ct = compare(cmp, a.t, b.v, t), cf = compare(cmp, a.f, b.v, t);
        r = (ct && cf) ? a : Val::unknown(s.line, "comparison");
        if (ct && cf) r.t = *ct ? 1 : 0, r.f = *cf ? 1 : 0;
      } else if (!isFloatCmp && a.k == Val::K::Addr && b.k == Val::K::Addr && a.base == b.base) {
        auto c = compare(cmp, a.v, b.v, t);
        r = c ? Val::num(*c ? 1 : 0) : Val::unknown(s.line, "comparison");
      } else {
        r = a.k == Val::K::Unknown   ? a
            : b.k == Val::K::Unknown ? b
                                     : Val::unknown(s.line, isFloatCmp ? "a floating-point comparison"
                                                                       : "a comparison of a value loaded from memory");
      }
      // setp.cmp.bop d, a, b, c: combine with a predicate
      if (parts.size() >= 3 && (parts[2] == "and" || parts[2] == "or" || parts[2] == "xor") && o.size() >= 4) {
        std::string pc = o[3];
        bool negc = !pc.empty() && pc[0] == '!';
        Val c = read(fr, negc ? pc.substr(1) : pc, s);
        if (r.k == Val::K::Int && c.k == Val::K::Int) {
          int64_t cv = negc ? (c.v == 0) : (c.v != 0);
          r.v = parts[2] == "and" ? (r.v & cv) : parts[2] == "or" ? (r.v | cv) : (r.v ^ cv);
        } else {
          r = Val::unknown(s.line, "a combined predicate");
        }
      }
      set(fr, dst, r);
      if (!dst2.empty()) {
        Val n = r;
        if (n.k == Val::K::Int) n.v = n.v != 0 ? 0 : 1;
        if (n.k == Val::K::Wait) n.t = n.t != 0 ? 0 : 1, n.f = n.f != 0 ? 0 : 1;
        set(fr, dst2, n);
      }
      return true;
    }
    if (head == "lop3") {
      need(5);
      Val a = rd(1), b = rd(2), c = rd(3), l = rd(4);
      if (a.k == Val::K::Int && b.k == Val::K::Int && c.k == Val::K::Int && l.k == Val::K::Int) {
        uint64_t r = 0;
        for (int bit = 0; bit < 64; ++bit) {
          int idx = ((a.v >> bit) & 1) << 2 | ((b.v >> bit) & 1) << 1 | ((c.v >> bit) & 1);
          r |= static_cast<uint64_t>((l.v >> idx) & 1) << bit;
        }
        set(fr, o[0], Val::num(norm(static_cast<int64_t>(r), t)));
      } else {
        set(fr, o[0], Val::unknown(s.line, "lop3 of untracked values"));
      }
      return true;
    }
    if (head == "elect") {
      // elect.sync d|p, membermask: the lowest active lane (lane 0 of a full warp) is elected.
      need(1);
      auto dp = split(o[0], '|');
      int lane = trace_.tid % 32;
      if (dp.size() == 2) {
        set(fr, dp[0], Val::num(0));
        set(fr, dp[1], Val::num(lane == 0 ? 1 : 0));
      }
      return true;
    }
    if (head == "activemask") {
      need(1);
      set(fr, o[0], Val::num(0xffffffff));
      return true;
    }
    if (head == "mapa") {
      need(3);
      Val a = rd(1), r = rd(2);
      if (a.k != Val::K::Addr || r.k != Val::K::Int) unresolved(s, a.k != Val::K::Addr ? a : r, "the mapa operand");
      a.cta = static_cast<int>(r.v);
      if (a.cta == trace_.cta) a.cta = -1;
      set(fr, o[0], a);
      return true;
    }
    static const std::set<std::string> ignored = {"nanosleep", "pmevent",       "setmaxnreg", "prefetch",
                                                  "prefetchu", "bar.warp.sync", "trap",       "brkpt",
                                                  "discard",   "applypriority"};
    if (ignored.count(head) || s.opcode.starts_with("bar.warp.sync")) return true;
    return false;
  }

  std::string guard_;  ///< the litmus guard of the instruction being recorded

  void step(Frame& fr, const PtxStmt& s) {
    guard_.clear();
    if (!s.label.empty()) {
      ++fr.pc;
      return;
    }
    const std::string& op = s.opcode;
    auto parts = split(op, '.');
    const std::string& head = parts[0];
    // Guard
    if (!s.guard.empty()) {
      Val g = read(fr, s.guard, s);
      if (g.k == Val::K::Wait && g.base >= 0 && head == "bra") {
        waitBranch(fr, s, g);
        return;
      }
      if (g.k == Val::K::Wait && g.base < 0 && head == "bra") {
        if (g.t == g.f) {
          bool on = (g.t != 0) != s.guardNeg;
          if (on)
            jump(fr, s, s.operands.back());
          else
            ++fr.pc;
          return;
        }
        forkBranch(fr, s, g);
        return;
      }
      if (g.k == Val::K::Wait && g.base < 0 && g.t != g.f) {
        // A modelled instruction guarded by a loaded predicate keeps its guard in the litmus test.
        guard_ = fmt::format("@{}{} ", ((g.t != 0) != s.guardNeg) ? "" : "!", g.reg);
      } else if ((g.k == Val::K::Unknown || g.k == Val::K::Loaded) && head == "bra" && skipSyncFree(fr, s)) {
        return;
      } else if (g.k != Val::K::Int) {
        unresolved(s, g, "the guard predicate");
      }
      bool on = g.k != Val::K::Int || (g.v != 0) != s.guardNeg;
      if (!on) {
        ++fr.pc;
        return;
      }
    }
    if (head == "bra" || head == "brx") {
      if (head == "brx" || s.operands.empty()) fail(s, "indirect branches are not supported");
      jump(fr, s, s.operands.back());
      return;
    }
    if (head == "ret") {
      ret();
      return;
    }
    if (head == "exit" || head == "trap") {
      stack_.clear();
      return;
    }
    if (head == "call") {
      call(fr, s);
      return;
    }
    if ((head == "ld" || head == "st") && (parts.size() > 1) &&
        (std::find(parts.begin(), parts.end(), "param") != parts.end() ||
         std::find(parts.begin(), parts.end(), "local") != parts.end())) {
      paramOrLocal(fr, s, head == "ld");
      return;
    }
    if ((head == "ld" || head == "st") && s.operands.size() >= 2) {
      // A generic access to the stack (`cvta.local` of a local depot, as `-G` code does) is local memory.
      const std::string& a = head == "ld" ? s.operands[1] : s.operands[0];
      if (a.starts_with("[")) {
        Val v = address(fr, a, s);
        if (v.k == Val::K::Addr && k_.bases[static_cast<size_t>(v.base)].k == Base::K::Local) {
          paramOrLocal(fr, s, head == "ld");
          return;
        }
      }
    }
    if (local(fr, s)) {
      ++fr.pc;
      return;
    }
    const ptx::OpInfo* row = findRow(op);
    if (row != nullptr) {
      ptx::FamilyRole role = ptx::roleOf(row->family);
      if (role != ptx::FamilyRole::Local && role != ptx::FamilyRole::Control) {
        keep(fr, s, *row);
        ++fr.pc;
        return;
      }
    }
    // Not modelled: its results are unknown; a memory operand is refused (its accesses would be lost).
    for (const auto& o : s.operands)
      if (o.starts_with("[")) fail(s, fmt::format("`{}` accesses memory but is not an instruction ptxmm models", op));
    if (!s.operands.empty() && !s.operands[0].starts_with("{"))
      set(fr, split(s.operands[0], '|')[0], Val::unknown(s.line, fmt::format("the result of `{}`", op)));
    else if (!s.operands.empty())
      for (const auto& e : split(s.operands[0].substr(1, s.operands[0].size() - 2), ','))
        set(fr, e, Val::unknown(s.line, fmt::format("the result of `{}`", op)));
    ++fr.pc;
  }

  void jump(Frame& fr, const PtxStmt& s, const std::string& label) {
    auto it = fr.labels.find(label);
    if (it == fr.labels.end()) fail(s, fmt::format("branch to an unknown label {}", label));
    fr.pc = it->second;
  }

  /// `@p bra L` where p depends on an mbarrier wait's result: the success path is followed; the failure
  /// path must lead back to the wait (a retry loop), which the litmus test keeps as a blocking wait.
  void waitBranch(Frame& fr, const PtxStmt& s, const Val& g) {
    bool takenOk = (g.t != 0) != s.guardNeg;
    bool takenFail = (g.f != 0) != s.guardNeg;
    auto it = fr.labels.find(s.operands.back());
    if (it == fr.labels.end()) fail(s, fmt::format("branch to an unknown label {}", s.operands.back()));
    size_t target = it->second;
    if (takenOk == takenFail) {
      fr.pc = takenOk ? target : fr.pc + 1;
      return;
    }
    Kept& w = trace_.kept[static_cast<size_t>(g.base)];
    size_t failPc = takenFail ? target : fr.pc + 1;
    // Scan the failure path: register-only code, parameter and stack memory and branches on known values until
    // the wait again (or the call of the helper that contains it).
    size_t depth = stack_.size() - 1;
    size_t again = depth < w.framePcs.size() ? w.framePcs[depth] : w.pc;
    Frame scan = fr;
    scan.pc = failPc;
    auto savedLocal = local_;
    bool back = false;
    for (int n = 0; n < 256 && scan.pc < scan.fn->body.size(); ++n) {
      if (scan.pc == again) {
        back = true;
        break;
      }
      const PtxStmt& t = scan.fn->body[scan.pc];
      if (!t.label.empty()) {
        ++scan.pc;
        continue;
      }
      auto hp = split(t.opcode, '.');
      bool on = true;
      if (!t.guard.empty()) {
        Val gv = read(scan, t.guard, t);
        if (gv.k == Val::K::Wait && gv.base == g.base) {
          on = ((gv.f != 0) != t.guardNeg);
        } else if (gv.k == Val::K::Int) {
          on = (gv.v != 0) != t.guardNeg;
        } else {
          break;
        }
      }
      if (!on) {
        ++scan.pc;
        continue;
      }
      if (hp[0] == "bra") {
        auto l = scan.labels.find(t.operands.back());
        if (l == scan.labels.end()) break;
        scan.pc = l->second;
        continue;
      }
      if ((hp[0] == "ld" || hp[0] == "st") && t.operands.size() >= 2) {
        const std::string& a = hp[0] == "ld" ? t.operands[1] : t.operands[0];
        bool frameMem = std::find(hp.begin(), hp.end(), "param") != hp.end() ||
                        std::find(hp.begin(), hp.end(), "local") != hp.end();
        if (!frameMem && a.starts_with("[")) {
          Val v = address(scan, a, t);
          frameMem = v.k == Val::K::Addr && k_.bases[static_cast<size_t>(v.base)].k == Base::K::Local;
        }
        if (!frameMem) break;
        paramOrLocal(scan, t, hp[0] == "ld");
        continue;
      }
      if (!local(scan, t)) break;
      ++scan.pc;
    }
    local_ = std::move(savedLocal);
    if (!back)
      fail(s, fmt::format("branch on the result of `{}` (line {}) that does not retry the wait: only wait loops are "
                          "supported",
                          w.stmt->opcode, w.stmt->line));
    w.waitLoop = true;
    fr.pc = takenOk ? target : fr.pc + 1;
  }

  void call(Frame& fr, const PtxStmt& s) {
    // call{.uni} (ret, ...), name, (arg, ...);  call name, (arg, ...);  call name;
    std::vector<std::string> rets, args;
    std::string name;
    auto list = [](const std::string& x) {
      std::vector<std::string> out;
      if (x.size() >= 2 && x.front() == '(' && x.back() == ')')
        for (const auto& e : split(x.substr(1, x.size() - 2), ','))
          if (!e.empty()) out.push_back(e);
      return out;
    };
    size_t i = 0;
    if (i < s.operands.size() && s.operands[i].starts_with("(")) rets = list(s.operands[i++]);
    if (i >= s.operands.size()) fail(s, "call without a target");
    name = s.operands[i++];
    if (i < s.operands.size()) args = list(s.operands[i++]);
    const PtxFunction* callee = k_.mod.function(name);
    if (callee == nullptr)
      fail(s, fmt::format("call of {}: no body in this module (indirect or external calls are refused)", name));
    for (const auto& f : stack_)
      if (f.fn == callee) fail(s, fmt::format("recursive call of {} is refused", name));
    Frame& caller = fr;
    std::map<std::string, std::map<int64_t, Val>> passed;
    for (size_t a = 0; a < args.size() && a < callee->params.size(); ++a) {
      auto it = caller.params.find(args[a]);
      if (it != caller.params.end()) passed[callee->params[a].name] = it->second;
    }
    push(*callee, rets);
    stack_.back().params = std::move(passed);
  }

  void paramOrLocal(Frame& fr, const PtxStmt& s, bool isLoad) {
    if (s.operands.size() < 2) fail(s, fmt::format("`{}` needs 2 operands", s.opcode));
    const std::string& a = isLoad ? s.operands[1] : s.operands[0];
    const std::string& r = isLoad ? s.operands[0] : s.operands[1];
    Val addr = address(fr, a, s);
    if (addr.k != Val::K::Addr) unresolved(s, addr, "the address");
    const Base& b = k_.bases[static_cast<size_t>(addr.base)];
    auto parts = split(s.opcode, '.');
    if (isLoad) {
      Val v;
      if (b.k == Base::K::Param && !b.sym.starts_with("frame:")) {
        int idx = paramIndex(b.sym);
        v = idx >= 0 ? kernelParam(idx, addr.v, s) : Val::unknown(s.line, "parameter");
      } else if (b.k == Base::K::Param) {
        auto& space = fr.params[b.sym.substr(6)];
        auto it = space.find(addr.v);
        v = it != space.end() ? it->second : Val::unknown(s.line, "a parameter never written");
      } else if (b.k == Base::K::Local) {
        auto it = local_.find({addr.base, addr.v});
        v = it != local_.end() ? it->second : Val::unknown(s.line, "local memory never written");
      } else {
        fail(s, "a .param/.local access to another state space");
      }
      if (r.starts_with("{"))
        for (const auto& e : split(r.substr(1, r.size() - 2), ',')) set(fr, e, Val::unknown(s.line, "a vector part"));
      else
        set(fr, r, v);
    } else {
      Val v = r.starts_with("{") ? Val::unknown(s.line, "a vector") : read(fr, r, s);
      if (b.k == Base::K::Param && b.sym.starts_with("frame:"))
        fr.params[b.sym.substr(6)][addr.v] = v;
      else if (b.k == Base::K::Local)
        local_[{addr.base, addr.v}] = v;
      else
        fail(s, "a store to a kernel parameter");
    }
    ++fr.pc;
  }

  std::string newReg(bool pred) { return fmt::format("%{}{}", pred ? "p" : "r", nextReg_++); }

  /// Records a modelled instruction with its operands resolved.
  void keep(Frame& fr, const PtxStmt& s, const ptx::OpInfo& row) {
    if (trace_.kept.size() >= k_.opt.maxKept)
      fail(s, fmt::format("thread {} of CTA {} executes more than {} synchronisation or memory instructions "
                          "(lower --iterations or the loop bound with --param)",
                          trace_.tid, trace_.cta, k_.opt.maxKept));
    auto parts = split(s.opcode, '.');
    bool weakGlobalData = false;
    if ((row.id == ptx::OpId::Ld || row.id == ptx::OpId::St)) {
      bool strong = false;
      for (const auto& p : parts)
        strong = strong || p == "relaxed" || p == "acquire" || p == "release" || p == "volatile" || p == "sc";
      bool global = std::find(parts.begin(), parts.end(), "global") != parts.end();
      weakGlobalData = !strong && global;
    }
    Kept k;
    k.stmt = &s;
    k.op = row.id;
    k.pc = fr.pc;
    k.guardReg = guard_;
    for (const auto& f : stack_) k.framePcs.push_back(f.pc);
    k.opcode = s.opcode;
    auto sig = ptx::operandSignature(row);
    bool dataFamily = row.family == ptx::OpFamily::Write || row.family == ptx::OpFamily::Rmw ||
                      row.family == ptx::OpFamily::AsyncStore;
    // Vector accesses: the first element stands for the access.
    bool vec = false;
    {
      std::string oc;
      for (size_t i = 0; i < parts.size(); ++i) {
        if (parts[i] == "v2" || parts[i] == "v4" || parts[i] == "v8") {
          vec = true;
          continue;
        }
        if ((row.id == ptx::OpId::Ld || row.id == ptx::OpId::St) &&
            (parts[i] == "nc" || parts[i].starts_with("L1::") || parts[i].starts_with("L2::") || parts[i] == "ca" ||
             parts[i] == "cg" || parts[i] == "cs" || parts[i] == "lu" || parts[i] == "cv" || parts[i] == "wb" ||
             parts[i] == "wt"))
          continue;
        oc += (oc.empty() ? "" : ".") + parts[i];
      }
      k.opcode = oc;
    }
    int addrSeen = 0;
    for (size_t i = 0; i < s.operands.size(); ++i) {
      std::string text = s.operands[i];
      char kind = i < sig.size() && !sig[i].empty() ? sig[i][0] : 's';
      if (text.starts_with("[")) kind = 'a';
      Opnd o;
      if (kind == 'a') {
        std::vector<Val> coords;
        Val a = address(fr, text, s, &coords);
        if (a.k != Val::K::Addr) unresolved(s, a, fmt::format("address operand {}", i + 1));
        const Base& b = k_.bases[static_cast<size_t>(a.base)];
        if (b.k == Base::K::Param || b.k == Base::K::Local)
          fail(s, fmt::format("`{}` accesses {} memory, which ptxmm does not model", s.opcode,
                              b.k == Base::K::Param ? "parameter" : "local"));
        if (b.k == Base::K::TensorMap) {
          o.k = Opnd::K::TMap;
          o.base = a.base;
          for (const auto& c : coords) {
            Opnd e;
            e.k = Opnd::K::Imm;
            e.imm = c.k == Val::K::Int ? c.v : 0;
            o.elems.push_back(e);
          }
        } else {
          o.k = Opnd::K::Addr;
          o.base = a.base;
          o.imm = a.v;
          o.cta = a.cta;
        }
        ++addrSeen;
        bool mbarFamily = row.family == ptx::OpFamily::Mbarrier || row.id == ptx::OpId::CpAsyncMbarArrive ||
                          row.id == ptx::OpId::Tcgen05Commit;
        o.mbar = mbarFamily || (row.id == ptx::OpId::ClcTryCancel && addrSeen == 2) ||
                 (row.id != ptx::OpId::ClcTryCancel && addrSeen >= 3);
      } else if (kind == 'd' || kind == 'p' || kind == 'v') {
        if (text == "_") {
          o.k = Opnd::K::Sink;
        } else if (text.starts_with("{")) {
          o.k = Opnd::K::Vec;
          auto es = split(text.substr(1, text.size() - 2), ',');
          for (size_t e = 0; e < es.size(); ++e) {
            Opnd x;
            if (es[e] == "_") {
              x.k = Opnd::K::Sink;
            } else {
              x.k = Opnd::K::Reg;
              x.reg = newReg(false);
              Val v;
              v.k = Val::K::Loaded;
              v.reg = x.reg;
              set(fr, es[e], v);
            }
            o.elems.push_back(x);
          }
          if (vec && !o.elems.empty()) {
            IntType ty = typeOf(parts);
            int n = 1;
            for (const auto& p : parts)
              if (p == "v2" || p == "v4" || p == "v8") n = std::atoi(p.c_str() + 1);
            if (row.id == ptx::OpId::Ld && ty.bits * n == 128) {
              // One 16-byte access (a try_cancel response is read as two b64 halves): one b128 register.
              std::string oc;
              for (const auto& p : split(k.opcode, '.'))
                oc += (oc.empty() ? "" : ".") + (typeNames().count(p) ? "b128" : p);
              k.opcode = oc;
              Val whole;
              whole.k = Val::K::Loaded;
              whole.reg = o.elems[0].reg;
              for (const auto& e : es)
                if (e != "_") set(fr, e, whole);
            }
            o = o.elems[0];
          }
        } else {
          bool pred = kind == 'p' || row.id == ptx::OpId::MbarrierTryWait || row.id == ptx::OpId::MbarrierTestWait ||
                      (i == 0 && std::find(parts.begin(), parts.end(), "pred") != parts.end());
          o.k = Opnd::K::Reg;
          o.reg = newReg(pred);
          Val v;
          if (row.id == ptx::OpId::MbarrierTryWait || row.id == ptx::OpId::MbarrierTestWait) {
            v.k = Val::K::Wait;
            v.base = static_cast<int>(trace_.kept.size());
            v.t = 1;
            v.f = 0;
            v.reg = o.reg;
          } else if (pred) {
            // A predicate a modelled instruction returns (query_cancel.is_canceled): branches on it fork.
            v.k = Val::K::Wait;
            v.base = -1;
            v.t = 1;
            v.f = 0;
            v.reg = o.reg;
          } else {
            v.k = Val::K::Loaded;
            v.reg = o.reg;
          }
          set(fr, text, v);
        }
      } else if (kind == 'l') {
        fail(s, "a label operand in a memory instruction");
      } else {
        // source value / immediate
        if (text.starts_with("{")) {
          Opnd vv;
          vv.k = Opnd::K::Vec;
          for (const auto& e : split(text.substr(1, text.size() - 2), ',')) {
            Val v = read(fr, e, s);
            Opnd x;
            if (v.k == Val::K::Int)
              x.k = Opnd::K::Imm, x.imm = v.v;
            else if (v.k == Val::K::Loaded)
              x.k = Opnd::K::Reg, x.reg = v.reg;
            else
              x.k = Opnd::K::Imm, x.imm = static_cast<int64_t>(trace_.kept.size()) + 1;
            vv.elems.push_back(x);
          }
          o = vec && !vv.elems.empty() ? vv.elems[0] : vv;
        } else {
          Val v = read(fr, text, s);
          if (row.id == ptx::OpId::St && i + 1 == s.operands.size() && v.k == Val::K::Int) {
            // The value a plain store writes is not what the test is about (no condition reads it): one
            // constant per instruction keeps threads that store their own index in one role.
            v = Val::unknown(s.line, "a stored value");
          }
          if (v.k == Val::K::Int) {
            o.k = Opnd::K::Imm;
            o.imm = v.v;
          } else if (v.k == Val::K::Loaded || (v.k == Val::K::Wait && v.t == 1 && v.f == 0)) {
            o.k = Opnd::K::Reg;
            o.reg = v.reg;
          } else if (dataFamily && i + 1 == s.operands.size()) {
            // A stored value the extractor cannot compute: a constant of its own (its value is not the point).
            o.k = Opnd::K::Imm;
            o.imm = static_cast<int64_t>(trace_.kept.size()) + 1;
          } else {
            unresolved(s, v, fmt::format("operand {}", i + 1));
          }
        }
      }
      k.ops.push_back(std::move(o));
    }
    if (weakGlobalData) {
      // Slicing: weak global data accesses are not synchronisation (their values are unknown from here on).
      if (row.id == ptx::OpId::Ld && !k.ops.empty() && k.ops[0].k == Opnd::K::Reg) {
        // keep nothing; the register is unknown
        for (auto& [name, v] : fr.regs)
          if (v.k == Val::K::Loaded && v.reg == k.ops[0].reg)
            v = Val::unknown(s.line, "a value loaded from global memory");
        --nextReg_;
      }
      return;
    }
    trace_.kept.push_back(std::move(k));
  }
};

// ---------------------------------------------------------------------------------------------------
// From the threads' records to the litmus test

struct Naming {
  // shared base → region stride (0: one region), mbarrier offsets
  std::map<int, int64_t> stride;
  std::map<int, std::set<int64_t>> mbarOffs;
  std::map<int, std::set<int64_t>> regions;  ///< data regions used
  const Kernel& k;
  explicit Naming(const Kernel& kk) : k(kk) {}

  std::string mbarName(int base, int64_t off) const {
    const auto& offs = mbarOffs.at(base);
    std::string n = k.bases[static_cast<size_t>(base)].name;
    if (offs.size() == 1) return n;
    return fmt::format("{}_{}", n, std::distance(offs.begin(), offs.find(off)));
  }
  int64_t region(int base, int64_t off) const {
    auto it = stride.find(base);
    if (it == stride.end() || it->second <= 0) return 0;
    return off >= 0 ? off / it->second : -1;
  }
  std::string dataName(int base, int64_t off) const {
    const Base& b = k.bases[static_cast<size_t>(base)];
    if (b.k != Base::K::Shared) return b.name;
    auto rs = regions.find(base);
    if (rs == regions.end() || rs->second.size() <= 1) return b.name;
    return fmt::format("{}_s{}", b.name, region(base, off));
  }
  std::string name(const Opnd& o) const {
    const Base& b = k.bases[static_cast<size_t>(o.base)];
    if (b.k == Base::K::Shared && mbarOffs.count(o.base) && mbarOffs.at(o.base).count(o.imm))
      return mbarName(o.base, o.imm);
    return dataName(o.base, o.imm);
  }
};

bool isMbarrierUse(const Kept& k, const Opnd& o) { return o.k == Opnd::K::Addr && o.mbar; }

bool isAsyncCopy(ptx::OpId op) {
  using ptx::OpId;
  return op == OpId::CpAsync || op == OpId::CpAsyncBulk || op == OpId::CpAsyncBulkTensor ||
         op == OpId::CpReduceAsyncBulk || op == OpId::CpReduceAsyncBulkTensor;
}

/// Arrivals an instruction makes on its mbarrier (the count the init's expected count is compared with).
int64_t arrivals(const Kept& k) {
  using ptx::OpId;
  switch (k.op) {
    case OpId::MbarrierArrive:
    case OpId::MbarrierArriveDrop: {
      // d?, a, s?: the count is the operand after the address, if any
      for (size_t i = 0; i + 1 < k.ops.size(); ++i)
        if (k.ops[i].k == Opnd::K::Addr && k.ops[i + 1].k == Opnd::K::Imm) {
          bool expectTx = k.opcode.find("expect_tx") != std::string::npos;
          return expectTx ? 1 : k.ops[i + 1].imm;
        }
      return 1;
    }
    case OpId::CpAsyncMbarArrive: return k.opcode.find("noinc") != std::string::npos ? 1 : 0;
    case OpId::Tcgen05Commit: return 1;
    default: return 0;
  }
}

std::string renderOperand(const Opnd& o, const Naming& nm) {
  switch (o.k) {
    case Opnd::K::Reg: return o.reg;
    case Opnd::K::Imm: return std::to_string(o.imm);
    case Opnd::K::Sink: return "_";
    case Opnd::K::Raw: return o.reg;
    case Opnd::K::Addr: {
      std::string n = nm.name(o);
      return o.cta >= 0 ? fmt::format("[{}@cta{}]", n, o.cta) : fmt::format("[{}]", n);
    }
    case Opnd::K::TMap: {
      std::string c;
      for (const auto& e : o.elems) c += (c.empty() ? "" : ", ") + renderOperand(e, nm);
      return fmt::format("[{}, {{{}}}]", nm.k.bases[static_cast<size_t>(o.base)].name, c);
    }
    case Opnd::K::Vec: {
      std::string c;
      for (const auto& e : o.elems) c += (c.empty() ? "" : ", ") + renderOperand(e, nm);
      return "{" + c + "}";
    }
  }
  return "";
}

struct Line {
  std::string text;
  const Kept* kept = nullptr;
};

struct Role {
  int cta = 0;
  std::vector<Line> lines;
  std::string key;
  std::vector<int> tids;
  const Trace* trace = nullptr;
  std::vector<std::vector<Line>> members;  ///< every member thread's lines (same texts)
};

std::string tidRanges(const std::vector<int>& tids) {
  std::string out;
  for (size_t i = 0; i < tids.size();) {
    size_t j = i;
    while (j + 1 < tids.size() && tids[j + 1] == tids[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + (i == j ? std::to_string(tids[i]) : fmt::format("{}-{}", tids[i], tids[j]));
    i = j + 1;
  }
  return out;
}

/// `tensormap.cp_fenceproxy` is `.sync.aligned` and one execution by the warp copies one map: every lane must
/// pass the same operands (PTX ISA 9.2 §9.7.13.16). ptxas for sm_90 has lane i copy bytes 4i..4i+3 of its own
/// operands, so lanes with different maps each write 4 bytes of theirs (docs/kernels.md). Refused at the line.
void checkUniformCopies(const Kernel& k, const std::vector<Trace>& traces) {
  // (cta, warp, statement, n-th execution) -> the first lane's operands and its thread id
  std::map<std::tuple<int, int, const PtxStmt*, int>, std::pair<std::vector<std::tuple<int, int64_t, int>>, int>> first;
  for (const auto& t : traces) {
    std::map<const PtxStmt*, int> nth;
    for (const auto& kp : t.kept) {
      if (kp.op != ptx::OpId::TensormapCpFenceproxy || kp.stmt == nullptr) continue;
      std::vector<std::tuple<int, int64_t, int>> ops;
      for (const auto& o : kp.ops) ops.emplace_back(o.base, o.imm, o.cta);
      auto key = std::make_tuple(t.cta, t.tid / 32, kp.stmt, nth[kp.stmt]++);
      auto [it, fresh] = first.try_emplace(key, ops, t.tid);
      if (fresh || it->second.first == ops) continue;
      auto where = [&](const std::tuple<int, int64_t, int>& o) {
        int b = std::get<0>(o);
        return b < 0 ? std::string("?") : fmt::format("[{}+{}]", k.bases[static_cast<size_t>(b)].name, std::get<1>(o));
      };
      std::string a, b;
      for (size_t i = 0; i < ops.size() && i < it->second.first.size(); ++i)
        if (ops[i] != it->second.first[i]) {
          a = where(it->second.first[i]);
          b = where(ops[i]);
          break;
        }
      fail(*kp.stmt, fmt::format("tensormap.cp_fenceproxy is .sync.aligned and the warp copies one tensor map per "
                                 "execution, but threads {} and {} of warp {} of CTA {} pass different operands ({} "
                                 "and {}): give every lane the same map (on sm_90 each lane copies 4 bytes of the "
                                 "map its own operands name, so each map gets only a 32nd of its bytes)",
                                 it->second.second, t.tid, t.tid / 32, t.cta, a, b));
    }
  }
}

ExtractedTest assemble(Kernel& k, std::vector<Trace>& traces) {
  checkUniformCopies(k, traces);
  Naming nm(k);
  // mbarrier objects
  for (const auto& t : traces)
    for (const auto& kp : t.kept)
      for (const auto& o : kp.ops)
        if (isMbarrierUse(kp, o)) nm.mbarOffs[o.base].insert(o.imm);
  // stage strides: distance between successive copies of one instruction by one thread
  std::map<int, int64_t> stride;
  for (const auto& t : traces) {
    // A loop the compiler unrolled issues each stage's copy from its own PTX line: all copies of the thread
    // into one buffer count.
    std::map<std::pair<int, int>, std::set<int64_t>> offs;  // (0, base) → offsets
    for (const auto& kp : t.kept) {
      if (!isAsyncCopy(kp.op)) continue;
      for (const auto& o : kp.ops)
        if (o.k == Opnd::K::Addr && !o.mbar && k.bases[static_cast<size_t>(o.base)].k == Base::K::Shared)
          offs[{0, o.base}].insert(o.imm);
    }
    for (const auto& [key, set] : offs) {
      int64_t prev = -1;
      for (int64_t x : set) {
        if (prev >= 0 && x > prev) {
          int64_t d = x - prev;
          auto& s = stride[key.second];
          if (s == 0 || d < s) s = d;
        }
        prev = x;
      }
    }
  }
  nm.stride = stride;
  for (const auto& t : traces)
    for (const auto& kp : t.kept)
      for (const auto& o : kp.ops)
        if (o.k == Opnd::K::Addr && k.bases[static_cast<size_t>(o.base)].k == Base::K::Shared &&
            !(nm.mbarOffs.count(o.base) && nm.mbarOffs[o.base].count(o.imm)))
          nm.regions[o.base].insert(nm.region(o.base, o.imm));

  // Render every thread; group into roles per CTA.
  std::vector<Role> roles;
  std::map<std::pair<int, std::string>, size_t> roleOf;
  for (const auto& t : traces) {
    Role r;
    r.cta = t.cta;
    r.trace = &t;
    std::string prevKey;
    bool onlyBarriers = true;
    for (const auto& kp : t.kept) {
      if (!kp.pseudo.empty()) {
        prevKey.clear();
        onlyBarriers = false;
        r.lines.push_back(Line{kp.pseudo, &kp});
        continue;
      }
      std::string ops;
      for (size_t i = 0; i < kp.ops.size(); ++i) ops += (i ? ", " : " ") + renderOperand(kp.ops[i], nm);
      std::string text = kp.guardReg + kp.opcode + ops + ";";
      // Consecutive identical accesses (other destination register) add nothing: the first stands for them.
      if (kp.op == ptx::OpId::Ld || kp.op == ptx::OpId::St) {
        std::string key = kp.opcode;
        for (size_t i = 0; i < kp.ops.size(); ++i)
          if (kp.ops[i].k == Opnd::K::Addr) key += renderOperand(kp.ops[i], nm);
        if (key == prevKey) continue;
        prevKey = key;
      } else {
        prevKey.clear();
      }
      auto fam = ptx::opInfo(kp.op).family;
      if (fam != ptx::OpFamily::Barrier && fam != ptx::OpFamily::Fence && fam != ptx::OpFamily::ProxyFence)
        onlyBarriers = false;
      r.lines.push_back(Line{text, &kp});
    }
    if (r.lines.empty() || onlyBarriers) continue;
    for (const auto& l : r.lines) r.key += l.text + "\n";
    auto [it, fresh] = roleOf.try_emplace({t.cta, r.key}, roles.size());
    std::vector<Line> mine = r.lines;
    if (fresh) roles.push_back(std::move(r));
    roles[it->second].tids.push_back(t.tid);
    roles[it->second].members.push_back(std::move(mine));
  }
  // A role whose threads write shared memory is two litmus threads (its first thread and the others): races
  // between the threads of one role (a thread reading the element another one copied) stay visible.
  {
    std::vector<Role> split2;
    for (auto& r : roles) {
      bool writes = false;
      for (const auto& l : r.lines) {
        auto fam = ptx::opInfo(l.kept->op).family;
        bool shared = false;
        for (const auto& o : l.kept->ops)
          shared =
              shared || (o.k == Opnd::K::Addr && !o.mbar && k.bases[static_cast<size_t>(o.base)].k == Base::K::Shared);
        writes = writes || (shared && (fam == ptx::OpFamily::Write || fam == ptx::OpFamily::Rmw ||
                                       fam == ptx::OpFamily::AsyncCopy || fam == ptx::OpFamily::AsyncStore));
      }
      if (r.tids.size() >= 2 && writes && k.opt.roles.empty()) {
        Role rest = r;
        rest.tids.erase(rest.tids.begin());
        rest.members.erase(rest.members.begin());
        rest.lines = rest.members.front();
        r.tids.resize(1);
        r.members.resize(1);
        split2.push_back(std::move(r));
        split2.push_back(std::move(rest));
      } else {
        split2.push_back(std::move(r));
      }
    }
    roles = std::move(split2);
  }
  if (!k.opt.roles.empty()) {
    std::vector<Role> chosen;
    for (auto& r : roles)
      if (std::any_of(r.tids.begin(), r.tids.end(), [&](int tid) {
            return std::find(k.opt.roles.begin(), k.opt.roles.end(), tid) != k.opt.roles.end();
          }))
        chosen.push_back(r);
    roles = std::move(chosen);
  }
  if (roles.empty())
    throw Failure{k.fn.line, 1,
                  "no thread of the kernel performs a synchronisation or shared-memory access ptxmm models"};
  if (roles.size() > k.opt.maxThreads) {
    std::string list;
    for (const auto& r : roles) list += fmt::format(" [cta {} threads {}]", r.cta, tidRanges(r.tids));
    throw Failure{k.fn.line, 1,
                  fmt::format("{} distinct roles (more than --max-threads {}):{}; choose representatives with --roles",
                              roles.size(), k.opt.maxThreads, list)};
  }

  // Rescaling of mbarrier arrival counts (a litmus thread stands for every kernel thread of its role).
  std::map<std::string, int64_t> kernelArr, litmusArr;  // "cta/name" of the mbarrier object
  auto objKey = [&](int cta, const Opnd& o) { return fmt::format("{}/{}", o.cta >= 0 ? o.cta : cta, nm.name(o)); };
  for (const auto& r : roles)
    for (const auto& l : r.lines) {
      int64_t a = arrivals(*l.kept);
      if (a == 0) continue;
      for (const auto& o : l.kept->ops)
        if (isMbarrierUse(*l.kept, o)) {
          kernelArr[objKey(r.cta, o)] += a * static_cast<int64_t>(r.tids.size());
          litmusArr[objKey(r.cta, o)] += a;
        }
    }
  // Roles the options dropped still arrive in the kernel: count every thread's arrivals.
  if (!k.opt.roles.empty()) {
    kernelArr.clear();
    for (const auto& t : traces)
      for (const auto& kp : t.kept) {
        int64_t a = arrivals(kp);
        for (const auto& o : kp.ops)
          if (a != 0 && isMbarrierUse(kp, o)) kernelArr[objKey(t.cta, o)] += a;
      }
  }
  // expect_tx: the model's bytes of the copies that follow on the same mbarrier in the same thread.
  auto modelBytes = [&](const Kept& kp) -> int64_t {
    if (kp.op == ptx::OpId::CpAsyncBulkTensor) return 16;
    if (kp.op == ptx::OpId::CpAsyncBulk || kp.op == ptx::OpId::CpReduceAsyncBulk)
      for (const auto& o : kp.ops)
        if (o.k == Opnd::K::Imm) return o.imm;
    return 0;
  };
  std::map<const Kept*, std::string> rewritten;
  // bar.sync thread counts: 32 per litmus thread of the CTA that uses the barrier id.
  std::map<std::pair<int, int64_t>, int> barUsers;
  for (const auto& r : roles) {
    std::set<int64_t> ids;
    for (const auto& l : r.lines)
      if ((l.kept->op == ptx::OpId::BarSync || l.kept->op == ptx::OpId::BarArrive) && !l.kept->ops.empty() &&
          l.kept->ops[0].k == Opnd::K::Imm)
        ids.insert(l.kept->ops[0].imm);
    for (auto id : ids) ++barUsers[{r.cta, id}];
  }
  for (auto& r : roles) {
    for (size_t i = 0; i < r.lines.size(); ++i) {
      const Kept& kp = *r.lines[i].kept;
      Kept copy = kp;
      bool changed = false;
      if (kp.op == ptx::OpId::MbarrierInit && kp.ops.size() >= 2 && kp.ops[1].k == Opnd::K::Imm) {
        std::string key = objKey(r.cta, kp.ops[0]);
        int64_t n = kp.ops[1].imm, ka = kernelArr[key], la = litmusArr[key];
        if (ka > 0 && la > 0) {
          if ((n * la) % ka != 0)
            throw Failure{
                kp.stmt->line, kp.stmt->col,
                fmt::format("mbarrier {} expects {} arrivals per phase, but the kernel's {} arrivals on it do not "
                            "map onto the litmus threads' {} (the arrival pattern is not uniform per role)",
                            nm.name(kp.ops[0]), n, ka, la)};
          copy.ops[1].imm = std::max<int64_t>(1, n * la / ka);
          changed = true;
        }
      }
      if ((kp.op == ptx::OpId::MbarrierArrive && kp.opcode.find("expect_tx") != std::string::npos) ||
          kp.op == ptx::OpId::MbarrierExpectTx) {
        const Opnd* bar = nullptr;
        size_t txIdx = 0;
        for (size_t j = 0; j < kp.ops.size(); ++j) {
          if (isMbarrierUse(kp, kp.ops[j])) bar = &kp.ops[j];
          if (kp.ops[j].k == Opnd::K::Imm) txIdx = j;
        }
        if (bar != nullptr && txIdx > 0) {
          int64_t bytes = 0;
          bool anyTensor = false;
          for (size_t j = i + 1; j < r.lines.size(); ++j) {
            const Kept& nx = *r.lines[j].kept;
            bool sameBar = false;
            for (const auto& o : nx.ops)
              sameBar = sameBar || (isMbarrierUse(nx, o) && nm.name(o) == nm.name(*bar) && o.cta == bar->cta);
            if (!sameBar) continue;
            if (nx.op == ptx::OpId::MbarrierArrive || nx.op == ptx::OpId::MbarrierExpectTx) break;
            if (isAsyncCopy(nx.op)) {
              bytes += modelBytes(nx);
              anyTensor = anyTensor || nx.op == ptx::OpId::CpAsyncBulkTensor;
            }
          }
          if (anyTensor && bytes > 0) {
            copy.ops[txIdx].imm = bytes;
            changed = true;
          }
        }
      }
      if ((kp.op == ptx::OpId::BarSync || kp.op == ptx::OpId::BarArrive) && kp.ops.size() >= 2 &&
          kp.ops[0].k == Opnd::K::Imm && kp.ops[1].k == Opnd::K::Imm) {
        copy.ops[1].imm = 32L * barUsers[{r.cta, kp.ops[0].imm}];
        changed = true;
      }
      if (changed) {
        std::string ops;
        for (size_t j = 0; j < copy.ops.size(); ++j) ops += (j ? ", " : " ") + renderOperand(copy.ops[j], nm);
        r.lines[i].text = copy.guardReg + copy.opcode + ops + ";";
      }
    }
  }

  // The test text.
  ExtractedTest out;
  out.name = sanitize(k.fn.name);
  std::ostringstream os;
  int line = 1;
  auto emit = [&](const std::string& s, const Kept* kp) {
    os << s << "\n";
    if (kp != nullptr) out.sites[line] = Site{kp->stmt->line, kp->stmt->text, kp->stmt->source};
    ++line;
  };
  emit("PTX " + out.name, nullptr);
  emit(
      fmt::format("\"Extracted by ptxmm extract from {}, kernel {}: {} thread(s) per CTA, {} CTA(s); one litmus thread "
                  "per synchronisation role\"",
                  k.mod.file, k.fn.name, k.nthreads, k.ctas),
      nullptr);
  // Declarations
  std::set<std::string> declared;
  std::vector<std::string> decls;
  std::set<int> tensorStores;
  for (const auto& r : roles)
    for (const auto& l : r.lines)
      for (const auto& o : l.kept->ops) {
        if (o.k == Opnd::K::TMap) {
          std::string n = k.bases[static_cast<size_t>(o.base)].name;
          if (declared.insert(n).second) decls.push_back(n + " = 1");
          if (l.kept->opcode.find(".global.shared") != std::string::npos && declared.insert(n + "_tensor").second)
            decls.push_back(n + "_tensor = 0");
          continue;
        }
        if (o.k != Opnd::K::Addr) continue;
        const Base& b = k.bases[static_cast<size_t>(o.base)];
        std::string n = nm.name(o);
        if (!declared.insert(n).second) continue;
        if (b.k == Base::K::Shared)
          decls.push_back(".shared " + n + " = 0");
        else
          decls.push_back(".global " + n + " = 1");
      }
  // try_cancel: clusters not launched yet that it may cancel, one per lap (first CTA ids after the test's own).
  bool clc = false;
  for (const auto& r : roles)
    for (const auto& l : r.lines) clc = clc || l.kept->op == ptx::OpId::ClcTryCancel;
  if (clc) {
    std::string ids;
    for (int64_t i = 1; i <= std::max<int64_t>(1, k.intParam); ++i)
      ids += (i > 1 ? ", " : "") + std::to_string(i * k.ctas);
    decls.push_back(".clc_pending " + ids);
  }
  std::string init = "{ ";
  for (size_t i = 0; i < decls.size(); ++i) init += (i ? "; " : "") + decls[i];
  emit(init + " }", nullptr);
  // Locations only async copies of a known value write (TMA loads copy the map's version 1; cp.async and
  // cp.async.bulk copy a global location initialised to 1): a consumer's load of them must read 1.
  std::map<std::string, int> writers;  // location → 1 copies only, 2 other writers
  for (const auto& r : roles)
    for (const auto& l : r.lines) {
      const Kept& kp = *l.kept;
      if (!kp.pseudo.empty()) continue;
      auto fam = ptx::opInfo(kp.op).family;
      bool loadCopy =
          (kp.op == ptx::OpId::CpAsyncBulkTensor && kp.opcode.find(".shared") < kp.opcode.find(".global")) ||
          ((kp.op == ptx::OpId::CpAsync || kp.op == ptx::OpId::CpAsyncBulk) &&
           kp.opcode.find(".shared") < kp.opcode.find(".global"));
      if (kp.op == ptx::OpId::CpAsync) {
        int imms = 0;
        for (const auto& o : kp.ops) imms += o.k == Opnd::K::Imm ? 1 : 0;
        loadCopy = loadCopy && imms == 1;  // a src-size operand zero-fills
      }
      bool writes = fam == ptx::OpFamily::Write || fam == ptx::OpFamily::Rmw || fam == ptx::OpFamily::AsyncCopy ||
                    fam == ptx::OpFamily::AsyncStore || kp.op == ptx::OpId::MbarrierInit;
      if (!writes || kp.ops.empty() || kp.ops[0].k != Opnd::K::Addr) continue;
      int& w = writers[nm.name(kp.ops[0])];
      w = std::max(w, loadCopy ? 1 : 2);
    }
  int label = 0;
  for (size_t ri = 0; ri < roles.size(); ++ri) {
    const Role& r = roles[ri];
    emit(fmt::format("P{}@cta {},cluster 0,gpu 0:", ri, r.cta), nullptr);
    out.roles.push_back(
        fmt::format("P{}: CTA {}, threads {} ({} thread(s))", ri, r.cta, tidRanges(r.tids), r.tids.size()));
    bool forked = false;  // after a branch of the extractor's own, a register may never be written
    for (size_t li = 0; li < r.lines.size(); ++li) {
      const Line& l = r.lines[li];
      // Footprints: the words every member touches with a plain access, the coordinates of a tensor op.
      std::map<std::string, std::set<std::string>> fp;
      for (const auto& mem : r.members) {
        const Kept& mk = *mem[li].kept;
        bool plain = mk.op == ptx::OpId::Ld || mk.op == ptx::OpId::St;
        auto parts = split(mk.opcode, '.');
        IntType ty = typeOf(parts);
        int64_t width = std::max(1, ty.bits / 8);
        for (const auto& p : parts)
          if (p == "v2" || p == "v4" || p == "v8") width *= std::atoi(p.c_str() + 1);
        bool sized = mk.op == ptx::OpId::CpAsync || mk.op == ptx::OpId::CpAsyncBulk;
        if (sized)
          for (const auto& o : mk.ops)
            if (o.k == Opnd::K::Imm) {
              width = o.imm;
              plain = width > 0 && width <= 4096;
              break;
            }
        for (const auto& o : mk.ops) {
          if (plain && o.k == Opnd::K::Addr && !o.mbar)
            for (int64_t w = o.imm / 4; w <= (o.imm + width - 1) / 4; ++w)
              fp[nm.name(o)].insert(fmt::format("{}+{}", o.base, w));
          if (o.k == Opnd::K::TMap && mk.opcode.find(".global.shared") != std::string::npos) {
            std::string c = "c:";
            for (const auto& e : o.elems) c += std::to_string(e.imm) + ",";
            fp[k.bases[static_cast<size_t>(o.base)].name + "_tensor"].insert(c);
          }
        }
      }
      if (l.kept->waitLoop) {
        std::string lab = fmt::format("W{}", label++);
        std::string pred = l.kept->ops.empty() ? "" : renderOperand(l.kept->ops[0], nm);
        emit(lab + ":", l.kept);
        emit("    " + l.text, l.kept);
        emit(fmt::format("    @!{} bra {};", pred, lab), l.kept);
      } else if (!l.kept->pseudo.empty() && l.text.back() == ':') {
        emit(l.text, l.kept);
      } else {
        if (!fp.empty()) out.footprint[line] = fp;
        const Kept& kp = *l.kept;
        if (kp.op == ptx::OpId::Ld && kp.pseudo.empty() && kp.guardReg.empty() && kp.ops.size() == 2 &&
            kp.ops[0].k == Opnd::K::Reg && kp.ops[1].k == Opnd::K::Addr && writers[nm.name(kp.ops[1])] == 1 &&
            !forked && out.observed.size() < 6)
          out.observed[fmt::format("{}:{}", ri, kp.ops[0].reg)] = line;
        emit("    " + l.text, l.kept);
      }
      forked = forked || !l.kept->pseudo.empty();
    }
  }
  std::string cond;
  for (const auto& [term, l] : out.observed) cond += (cond.empty() ? "" : " \\/ ") + term + " != 1";
  emit(cond.empty() ? "~exists (false)" : "~exists (" + cond + ")", nullptr);
  out.text = os.str();
  return out;
}

KernelExtract extractKernel(const PtxModule& m, const PtxFunction& f, const ExtractOptions& opt) {
  KernelExtract ke;
  ke.name = f.name;
  Kernel k(m, f, opt);
  try {
    int bx = f.maxntid[0] > 0 ? f.maxntid[0] : 128;
    k.dims[0] = bx;
    k.dims[1] = f.maxntid[1] > 0 ? f.maxntid[1] : 1;
    k.dims[2] = f.maxntid[2] > 0 ? f.maxntid[2] : 1;
    if (opt.block > 0) k.dims[0] = opt.block, k.dims[1] = 1, k.dims[2] = 1;
    k.nthreads = k.dims[0] * k.dims[1] * k.dims[2];
    if (k.nthreads <= 0 || k.nthreads > 1024)
      throw Failure{f.line, 1, fmt::format("{} threads per CTA: PTX allows 1..1024", k.nthreads)};
    k.ctas = opt.cluster > 0
                 ? opt.cluster
                 : std::max(1, f.clusterDim[0] * std::max(1, f.clusterDim[1]) * std::max(1, f.clusterDim[2]));
    if (k.ctas > 16) throw Failure{f.line, 1, fmt::format("{} CTAs per cluster: at most 16 are extracted", k.ctas)};
    auto runAll = [&]() {
      k.totalSteps = 0;
      std::vector<Trace> traces;
      for (int c = 0; c < k.ctas; ++c)
        for (int t = 0; t < k.nthreads; ++t) traces.push_back(Thread(k, c, t).run());
      return traces;
    };
    if (opt.iterations > 0) {
      k.intParam = opt.iterations;
    } else {
      // A first run with one iteration finds the stage count (mbarrier objects per array): two laps of it.
      k.intParam = 1;
      auto probe = runAll();
      std::map<int, std::set<int64_t>> objs;
      for (const auto& t : probe)
        for (const auto& kp : t.kept)
          for (const auto& o : kp.ops)
            if (isMbarrierUse(kp, o)) objs[o.base].insert(o.imm);
      size_t stages = 1;
      for (const auto& [b, s] : objs) stages = std::max(stages, s.size());
      k.intParam = static_cast<int64_t>(2 * std::min<size_t>(stages, 4));
      if (k.intParam < 2) k.intParam = 2;
    }
    auto traces = runAll();
    ke.test = assemble(k, traces);
  } catch (const Failure& e) {
    ke.error = Diagnostic{Severity::Error, SourceLoc{m.file, e.line, e.col}, e.msg};
  } catch (const DiagnosticError& e) {
    ke.error = e.diagnostic();
  }
  return ke;
}

}  // namespace

std::vector<KernelExtract> extractModule(const PtxModule& module, const ExtractOptions& options) {
  std::vector<KernelExtract> out;
  for (const auto& f : module.functions) {
    if (!f.isEntry) continue;
    if (!options.kernel.empty() && f.name != options.kernel) continue;
    out.push_back(extractKernel(module, f, options));
  }
  if (out.empty()) {
    KernelExtract ke;
    ke.name = options.kernel;
    ke.error = Diagnostic{Severity::Error, SourceLoc{module.file, 1, 1},
                          options.kernel.empty() ? "the module has no kernel (.entry)"
                                                 : fmt::format("no kernel named {} in the module", options.kernel)};
    out.push_back(ke);
  }
  return out;
}

}  // namespace ptxmm::extract
