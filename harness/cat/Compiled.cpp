#include "cat/Compiled.hpp"

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <unordered_map>

#include "cat/HerdLib.hpp"
#include "cat/Parser.hpp"

namespace ptxmm::cat::detail {

namespace {

struct Scope {
  Scope* parent = nullptr;
  int nslots = 0;
  std::vector<std::pair<std::string, int>> names;
  bool top = false;
};

class Compiler {
 public:
  Compiler(CompiledModel& cm, const InterpreterOptions& opts) : cm_(cm), opts_(opts) {}

  void compileTop(const Model& m) {
    Scope top;
    top.top = true;
    scope_ = &top;
    if (m.prelude) compileInstrs(m.prelude->instrs, cm_.top, true);
    compileInstrs(m.main->instrs, cm_.top, true);
    cm_.topSlots = top.nslots;
  }

 private:
  CompiledModel& cm_;
  const InterpreterOptions& opts_;
  Scope* scope_ = nullptr;
  std::unordered_map<std::string, int> builtinIndex_;
  std::unordered_map<std::string, int> tagIndex_;

  CExpr* newExpr(Op op, const SourceLoc& loc) {
    cm_.exprs.emplace_back();
    CExpr* e = &cm_.exprs.back();
    e->op = op;
    e->loc = loc;
    return e;
  }

  int newSlot() { return scope_->nslots++; }
  int bindName(const std::string& name) {
    int s = newSlot();
    if (name != "_") {
      scope_->names.emplace_back(name, s);
      if (scope_->top && std::find(cm_.boundNames.begin(), cm_.boundNames.end(), name) == cm_.boundNames.end())
        cm_.boundNames.push_back(name);
    }
    return s;
  }

  int tagId(const std::string& name) {
    auto [it, fresh] = tagIndex_.try_emplace(name, static_cast<int>(cm_.tagNames.size()));
    if (fresh) {
      cm_.tagNames.push_back(name);
      cm_.tagEnum.push_back(-1);
    }
    return it->second;
  }

  static int primOf(const std::string& name) {
    if (name == "domain") return static_cast<int>(Prim::Domain);
    if (name == "range") return static_cast<int>(Prim::Range);
    if (name == "classes-loc") return static_cast<int>(Prim::ClassesLoc);
    if (name == "linearisations") return static_cast<int>(Prim::Linearisations);
    if (name == "fail") return static_cast<int>(Prim::Fail);
    if (name == "classes") return static_cast<int>(Prim::Classes);
    if (name == "tag2scope" || name == "tag2level") return static_cast<int>(Prim::Tag2Scope);
    if (name == "tag2events") return static_cast<int>(Prim::Tag2Events);
    if (name == "bisimulation") return static_cast<int>(Prim::Bisimulation);
    if (name == "generate_orders") return static_cast<int>(Prim::GenerateOrders);
    if (name == "generate_cos") return static_cast<int>(Prim::GenerateCos);
    return -1;
  }

  // The herd7 fallback definition of a new built-in (cat/HerdLib.hpp), compiled in a scope of its own.
  void addFallback(int id, const std::string& name) {
    cm_.builtinFallback.resize(cm_.builtinNames.size(), nullptr);
    cm_.builtinFallbackSlots.resize(cm_.builtinNames.size(), 0);
    const HerdName* h = findHerdName(name);
    if (!h) return;
    if (h->empty && std::find(cm_.emptyBound.begin(), cm_.emptyBound.end(), name) == cm_.emptyBound.end())
      cm_.emptyBound.push_back(name);
    ExprPtr def = parseCatExpr(h->definition, "<herd7 name " + name + ">");
    Scope s;
    Scope* saved = scope_;
    scope_ = &s;
    const CExpr* c = compile(*def);
    scope_ = saved;
    cm_.builtinFallback.resize(cm_.builtinNames.size(), nullptr);
    cm_.builtinFallbackSlots.resize(cm_.builtinNames.size(), 0);
    cm_.builtinFallback[static_cast<size_t>(id)] = c;
    cm_.builtinFallbackSlots[static_cast<size_t>(id)] = s.nslots;
  }

  CExpr* resolve(const std::string& name, const SourceLoc& loc) {
    int depth = 0;
    for (Scope* s = scope_; s; s = s->parent, ++depth) {
      for (auto it = s->names.rbegin(); it != s->names.rend(); ++it)
        if (it->first == name) {
          CExpr* e = newExpr(Op::Local, loc);
          e->depth = depth;
          e->slot = it->second;
          e->name = name;
          return e;
        }
    }
    if (int p = primOf(name); p >= 0) {
      CExpr* e = newExpr(Op::Prim, loc);
      e->id = p;
      e->name = name;
      return e;
    }
    auto [it, fresh] = builtinIndex_.try_emplace(name, static_cast<int>(cm_.builtinNames.size()));
    const int id = it->second;
    if (fresh) {
      cm_.builtinNames.push_back(name);
      addFallback(id, name);
    }
    CExpr* e = newExpr(Op::Builtin, loc);
    e->id = id;
    e->name = name;
    return e;
  }

  // ---- expressions ---------------------------------------------------------------------------

  const CExpr* compile(const Expr& e) {
    switch (e.kind) {
      case ExprKind::EmptySet: return newExpr(Op::EmptySet, e.loc);
      case ExprKind::Zero: return newExpr(Op::Zero, e.loc);
      case ExprKind::Universe: return newExpr(Op::Universe, e.loc);
      case ExprKind::Var: return resolve(e.name, e.loc);
      case ExprKind::Tag: {
        CExpr* c = newExpr(Op::Tag, e.loc);
        c->id = tagId(e.name);
        c->name = e.name;
        return c;
      }
      case ExprKind::Str: {
        CExpr* c = newExpr(Op::Str, e.loc);
        c->name = e.name;
        return c;
      }
      case ExprKind::Union: return nary(Op::Union, e);
      case ExprKind::Inter: return nary(Op::Inter, e);
      case ExprKind::Diff: return nary(Op::Diff, e);
      case ExprKind::Seq: return nary(Op::Seq, e);
      case ExprKind::Cross: return nary(Op::Cross, e);
      case ExprKind::Add: return nary(Op::Add, e);
      case ExprKind::Star: return nary(Op::Star, e);
      case ExprKind::Plus: return nary(Op::Plus, e);
      case ExprKind::Opt: return nary(Op::Opt, e);
      case ExprKind::Complement: return nary(Op::Compl, e);
      case ExprKind::Inverse: return nary(Op::Inv, e);
      case ExprKind::Diag: return nary(Op::Diag, e);
      case ExprKind::App: return nary(Op::App, e);
      case ExprKind::Tuple: return nary(Op::Tuple, e);
      case ExprKind::ExplicitSet: return nary(Op::ExplicitSet, e);
      case ExprKind::Fun: {
        CExpr* c = newExpr(Op::Fun, e.loc);
        c->fun = compileFun(e.name, e.param, *e.args[0], e.loc);
        return c;
      }
      case ExprKind::Let: {
        CExpr* c = newExpr(Op::Let, e.loc);
        size_t mark = scope_->names.size();
        c->binds = compileLet(e.bindings);
        c->args.push_back(compile(*e.args[0]));
        scope_->names.resize(mark);
        return c;
      }
      case ExprKind::LetRec: {
        CExpr* c = newExpr(Op::LetRec, e.loc);
        size_t mark = scope_->names.size();
        c->binds = compileLetRec(e.bindings);
        c->args.push_back(compile(*e.args[0]));
        scope_->names.resize(mark);
        return c;
      }
      case ExprKind::MatchTag: {
        CExpr* c = newExpr(Op::MatchTag, e.loc);
        c->args.push_back(compile(*e.args[0]));
        for (const auto& a : e.arms) {
          CArm arm;
          arm.tag = a.tag.empty() ? -1 : tagId(a.tag);
          arm.body = compile(*a.body);
          c->arms.push_back(arm);
        }
        return c;
      }
      case ExprKind::MatchSet: {
        CExpr* c = newExpr(Op::MatchSet, e.loc);
        c->args.push_back(compile(*e.args[0]));
        for (const auto& a : e.arms) {
          CArm arm;
          size_t mark = scope_->names.size();
          arm.emptyArm = a.emptyArm;
          if (!a.emptyArm && !a.elem.empty()) {
            if (!a.below.empty()) arm.belowSlot = bindName(a.below);
            arm.elemSlot = bindName(a.elem);
            arm.restSlot = bindName(a.rest);
          } else if (!a.emptyArm) {
            arm.tag = -1;  // default `_`
          }
          arm.body = compile(*a.body);
          scope_->names.resize(mark);
          c->arms.push_back(arm);
        }
        return c;
      }
      case ExprKind::If: {
        CExpr* c = newExpr(Op::If, e.loc);
        c->cond = compileCond(*e.cond);
        c->args.push_back(compile(*e.args[0]));
        c->args.push_back(compile(*e.args[1]));
        return c;
      }
      case ExprKind::Try: return nary(Op::Try, e);
    }
    throw DiagnosticError(e.loc, "internal error: unknown expression kind");
  }

  const CExpr* nary(Op op, const Expr& e) {
    CExpr* c = newExpr(op, e.loc);
    for (const auto& a : e.args) c->args.push_back(compile(*a));
    return c;
  }

  const CFun* compileFun(const std::string& name, const Pattern& param, const Expr& body, const SourceLoc& loc) {
    Scope s;
    s.parent = scope_;
    scope_ = &s;
    cm_.funs.emplace_back();
    CFun* f = &cm_.funs.back();
    f->loc = loc;
    f->name = name.empty() ? "fun" : name;
    f->tuple = param.tuple;
    for (const auto& n : param.names) f->params.push_back(bindName(n));
    f->body = compile(body);
    f->nslots = s.nslots;
    scope_ = s.parent;
    return f;
  }

  const CCond* compileCond(const Cond& c) {
    cm_.conds.emplace_back();
    CCond* cc = &cm_.conds.back();
    cc->kind = c.kind;
    cc->loc = c.loc;
    if (c.lhs) cc->lhs = compile(*c.lhs);
    if (c.rhs) cc->rhs = compile(*c.rhs);
    if (c.kind == Cond::Kind::Variant)
      cc->variantValue = std::find(opts_.variants.begin(), opts_.variants.end(), c.variant) != opts_.variants.end();
    for (const auto& s : c.sub) cc->sub.push_back(compileCond(*s));
    return cc;
  }

  static bool isStatic(const CCond& c) {
    switch (c.kind) {
      case Cond::Kind::Variant: return true;
      case Cond::Kind::Not:
      case Cond::Kind::And:
      case Cond::Kind::Or: return std::all_of(c.sub.begin(), c.sub.end(), [](const CCond* s) { return isStatic(*s); });
      default: return false;
    }
  }
  static bool staticValue(const CCond& c) {
    switch (c.kind) {
      case Cond::Kind::Variant: return c.variantValue;
      case Cond::Kind::Not: return !staticValue(*c.sub[0]);
      case Cond::Kind::And: return staticValue(*c.sub[0]) && staticValue(*c.sub[1]);
      case Cond::Kind::Or: return staticValue(*c.sub[0]) || staticValue(*c.sub[1]);
      default: return false;
    }
  }

  std::vector<CBind> compileLet(const std::vector<Binding>& bs) {
    std::vector<CBind> out;
    for (const auto& b : bs) {
      CBind cb;
      cb.loc = b.loc;
      cb.name = b.pat.names.empty() ? "()" : b.pat.names[0];
      cb.tuple = b.pat.tuple;
      cb.isFun = b.expr->kind == ExprKind::Fun;
      if (cb.isFun && b.expr->name.empty() && !b.pat.tuple) {
        // name anonymous functions after their binding for messages
        CExpr* c = newExpr(Op::Fun, b.expr->loc);
        c->fun = compileFun(cb.name, b.expr->param, *b.expr->args[0], b.expr->loc);
        cb.expr = c;
      } else {
        cb.expr = compile(*b.expr);
      }
      out.push_back(std::move(cb));
    }
    // bind after compiling every right-hand side (let ... and ... is simultaneous)
    for (size_t i = 0; i < bs.size(); ++i)
      for (const auto& n : bs[i].pat.names) out[i].slots.push_back(bindName(n));
    return out;
  }

  std::vector<CBind> compileLetRec(const std::vector<Binding>& bs) {
    std::vector<CBind> out(bs.size());
    for (size_t i = 0; i < bs.size(); ++i) {
      if (bs[i].pat.tuple) throw DiagnosticError(bs[i].loc, "tuple patterns are not supported in 'let rec'");
      out[i].slots.push_back(bindName(bs[i].pat.names[0]));
    }
    for (size_t i = 0; i < bs.size(); ++i) {
      out[i].loc = bs[i].loc;
      out[i].name = bs[i].pat.names[0];
      out[i].isFun = bs[i].expr->kind == ExprKind::Fun;
      if (out[i].isFun) {
        CExpr* c = newExpr(Op::Fun, bs[i].expr->loc);
        c->fun = compileFun(out[i].name, bs[i].expr->param, *bs[i].expr->args[0], bs[i].expr->loc);
        out[i].expr = c;
      } else {
        out[i].expr = compile(*bs[i].expr);
      }
    }
    return out;
  }

  // ---- instructions --------------------------------------------------------------------------

  bool skipped(const std::string& name) const {
    return !name.empty() && std::find(opts_.skipChecks.begin(), opts_.skipChecks.end(), name) != opts_.skipChecks.end();
  }

  static const char* testName(CheckTest t) {
    switch (t) {
      case CheckTest::Acyclic: return "acyclic";
      case CheckTest::Irreflexive: return "irreflexive";
      case CheckTest::Empty: return "empty";
    }
    return "check";
  }

  void compileInstrs(const std::vector<InstrPtr>& in, std::vector<CInstr>& out, bool top) {
    for (const auto& ip : in) compileInstr(*ip, out, top);
  }

  void compileInstr(const Instr& in, std::vector<CInstr>& out, bool top) {
    CInstr ci;
    ci.loc = in.loc;
    switch (in.kind) {
      case InstrKind::Let:
        ci.op = IOp::Let;
        ci.binds = compileLet(in.bindings);
        out.push_back(std::move(ci));
        return;
      case InstrKind::LetRec:
        ci.op = IOp::LetRec;
        ci.binds = compileLetRec(in.bindings);
        out.push_back(std::move(ci));
        if (in.when) {  // `let rec ... when TEST`: TEST as a plain check of the fixpoint
          Instr check = in;
          check.kind = InstrKind::Check;
          check.checkKind = CheckKind::Check;
          compileInstr(check, out, top);
        }
        return;
      case InstrKind::Check: {
        std::string name = in.name;
        if (name.empty()) {
          std::string file = std::filesystem::path(in.loc.file).filename().string();
          name = std::string(testName(in.test)) + "@" + file + ":" + std::to_string(in.loc.line);
        }
        if (skipped(in.name)) return;
        ci.op = IOp::Check;
        ci.check = static_cast<int>(cm_.checks.size());
        cm_.checks.push_back(CheckInfo{name, in.checkKind, in.test, in.negated, in.loc});
        ci.expr = compile(*in.expr);
        out.push_back(std::move(ci));
        return;
      }
      case InstrKind::Show:
        ci.op = IOp::Show;
        if (in.expr) {
          ci.shows.emplace_back(in.name, compile(*in.expr));
        } else {
          for (const auto& n : in.names) ci.shows.emplace_back(n, resolve(n, in.loc));
        }
        out.push_back(std::move(ci));
        return;
      case InstrKind::Unshow:
      case InstrKind::Debug:
      case InstrKind::Instructions: return;
      case InstrKind::Include:
        if (!top) throw DiagnosticError(in.loc, "'include' is only allowed at the top level");
        if (!in.included) throw DiagnosticError(in.loc, "include of '" + in.name + "' was not resolved");
        compileInstrs(in.included->instrs, out, true);
        return;
      case InstrKind::Procedure: {
        cm_.procs.emplace_back();
        CProc* p = &cm_.procs.back();
        p->loc = in.loc;
        p->name = in.name;
        p->tuple = in.param.tuple;
        // a procedure sees itself only if declared `rec`
        int selfSlot = -1;
        if (in.recursive) selfSlot = bindName(in.name);
        Scope s;
        s.parent = scope_;
        scope_ = &s;
        for (const auto& n : in.param.names) p->params.push_back(bindName(n));
        compileInstrs(in.body, p->body, false);
        p->nslots = s.nslots;
        scope_ = s.parent;
        CExpr* c = newExpr(Op::Proc, in.loc);
        c->proc = p;
        CBind b;
        b.loc = in.loc;
        b.name = in.name;
        b.isFun = true;
        b.expr = c;
        b.slots.push_back(selfSlot >= 0 ? selfSlot : bindName(in.name));
        ci.op = in.recursive ? IOp::LetRec : IOp::Let;
        ci.binds.push_back(std::move(b));
        out.push_back(std::move(ci));
        return;
      }
      case InstrKind::Call:
        if (!in.names.empty() && skipped(in.names[0])) return;
        ci.op = IOp::Call;
        ci.callee = resolve(in.name, in.loc);
        ci.expr = compile(*in.expr);
        out.push_back(std::move(ci));
        return;
      case InstrKind::Forall: {
        ci.op = IOp::Forall;
        ci.expr = compile(*in.expr);
        Scope s;
        s.parent = scope_;
        scope_ = &s;
        ci.varSlot = bindName(in.name);
        compileInstrs(in.body, ci.body, false);
        ci.nslots = s.nslots;
        scope_ = s.parent;
        out.push_back(std::move(ci));
        return;
      }
      case InstrKind::With:
        if (!top || !scope_->top) throw DiagnosticError(in.loc, "'with' is only supported at the top level of a model");
        ci.op = IOp::With;
        ci.expr = compile(*in.expr);
        ci.varSlot = bindName(in.name);
        {
          // Algebras that merge the choices of a `with` into one outcome (the smt engine's) record which
          // choice an execution takes as this plain check.
          std::string file = std::filesystem::path(in.loc.file).filename().string();
          ci.check = static_cast<int>(cm_.checks.size());
          cm_.checks.push_back(CheckInfo{"with@" + file + ":" + std::to_string(in.loc.line), CheckKind::Check,
                                         CheckTest::Empty, false, in.loc});
        }
        out.push_back(std::move(ci));
        return;
      case InstrKind::Enum: {
        int idx = static_cast<int>(cm_.enums.size());
        cm_.enums.emplace_back();
        CExpr* set = newExpr(Op::ExplicitSet, in.loc);
        for (const auto& t : in.names) {
          int id = tagId(t);
          cm_.tagEnum[id] = idx;
          cm_.enums.back().push_back(id);
          CExpr* tag = newExpr(Op::Tag, in.loc);
          tag->id = id;
          tag->name = t;
          set->args.push_back(tag);
        }
        CBind b;
        b.loc = in.loc;
        b.name = in.name;
        b.expr = set;
        b.slots.push_back(bindName(in.name));
        ci.op = IOp::Let;
        ci.binds.push_back(std::move(b));
        out.push_back(std::move(ci));
        return;
      }
      case InstrKind::If: {
        const CCond* c = compileCond(*in.cond);
        if (isStatic(*c)) {
          compileInstrs(staticValue(*c) ? in.body : in.elseBody, out, top);
          return;
        }
        ci.op = IOp::If;
        ci.cond = c;
        compileInstrs(in.body, ci.body, false);
        compileInstrs(in.elseBody, ci.elseBody, false);
        out.push_back(std::move(ci));
        return;
      }
      case InstrKind::Match: {
        ci.op = IOp::Match;
        ci.expr = compile(*in.expr);
        for (size_t k = 0; k < in.arms.size(); ++k) {
          ci.armTags.push_back(in.arms[k].tag.empty() ? -1 : tagId(in.arms[k].tag));
          ci.armBodies.emplace_back();
          compileInstrs(in.armBodies[k], ci.armBodies.back(), false);
        }
        out.push_back(std::move(ci));
        return;
      }
    }
  }
};

}  // namespace

namespace {

/// Top-level slots and built-ins an expression may read (through closures too).
struct Deps {
  std::vector<int> slots;
  std::vector<int> builtins;
};

void collectDeps(const CExpr* e, int depth, Deps& d);

void collectCond(const CCond* c, int depth, Deps& d) {
  if (!c) return;
  collectDeps(c->lhs, depth, d);
  collectDeps(c->rhs, depth, d);
  for (const auto* s : c->sub) collectCond(s, depth, d);
}

void collectDeps(const CExpr* e, int depth, Deps& d) {
  if (!e) return;
  switch (e->op) {
    case Op::Local:
      if (e->depth == depth) d.slots.push_back(e->slot);
      return;
    case Op::Builtin: d.builtins.push_back(e->id); return;
    case Op::Prim:
      // these read built-ins by name at run time (generate_* the engine's co): never static
      switch (static_cast<Prim>(e->id)) {
        case Prim::GenerateOrders:
        case Prim::GenerateCos:
        case Prim::Tag2Events:
        case Prim::Tag2Scope: d.slots.push_back(-1); return;
        default: return;
      }
    case Op::Fun: collectDeps(e->fun->body, depth + 1, d); return;
    case Op::Proc: d.slots.push_back(-1); return;  // never static
    default: break;
  }
  for (const auto* a : e->args) collectDeps(a, depth, d);
  for (const auto& b : e->binds) collectDeps(b.expr, depth, d);
  for (const auto& a : e->arms) collectDeps(a.body, depth, d);
  collectCond(e->cond, depth, d);
}

/// Marks every slot bound by the instructions as bound and not static.
void markDynamic(CompiledModel& cm, const std::vector<CInstr>& instrs, std::vector<char>& isBind) {
  for (const auto& in : instrs) {
    for (const auto& b : in.binds)
      for (int s : b.slots)
        if (s >= 0) {
          isBind[static_cast<size_t>(s)] = 1;
          cm.staticSlot[static_cast<size_t>(s)] = 0;
        }
    if (in.op != IOp::If && in.op != IOp::Match) continue;  // other bodies have frames of their own
    markDynamic(cm, in.body, isBind);
    markDynamic(cm, in.elseBody, isBind);
    for (const auto& b : in.armBodies) markDynamic(cm, b, isBind);
  }
}

/// Gives a cache index to each largest static subexpression of `e` that computes something (an operator, not a
/// name or a constant), evaluated in the top frame: `[M] ; cb ; [M]` then takes `[M]` from the run cache
/// instead of building it again on every run. `isStatic` tells whether an expression depends on no dynamic
/// name. Subexpressions with frames of their own (functions, local lets, matches, conditions) are not entered.
template <class IsStatic>
void cacheStatic(CompiledModel& cm, const CExpr* e, const IsStatic& isStatic,
                 const std::unordered_map<int, const CExpr*>& diagSlots) {
  switch (e->op) {
    case Op::Union:
    case Op::Inter:
    case Op::Diff:
    case Op::Seq:
    case Op::Cross:
    case Op::Star:
    case Op::Plus:
    case Op::Opt:
    case Op::Compl:
    case Op::Inv:
    case Op::Diag:
      if (isStatic(e)) {
        if (e->cacheId < 0) const_cast<CExpr*>(e)->cacheId = cm.cachedExprs++;
        // A sequence takes a `[S]` operand's set, not its relation (Interpreter::seqRestricting).
        if (e->op == Op::Diag) cacheStatic(cm, e->args[0], isStatic, diagSlots);
        return;
      }
      for (const auto* a : e->args) cacheStatic(cm, a, isStatic, diagSlots);
      return;
    case Op::Local:
      if (e->depth == 0)
        if (auto it = diagSlots.find(e->slot); it != diagSlots.end()) const_cast<CExpr*>(e)->diagArg = it->second;
      return;
    case Op::EmptySet:
    case Op::Zero:
    case Op::Universe:
    case Op::Builtin:
    case Op::Prim:
    case Op::Tag:
    case Op::Str:
    case Op::Add:
    case Op::App:
    case Op::Tuple:
    case Op::ExplicitSet:
    case Op::Fun:
    case Op::Proc:
    case Op::Let:
    case Op::LetRec:
    case Op::MatchTag:
    case Op::MatchSet:
    case Op::If:
    case Op::Try: return;
  }
}

/// Marks the top-level slots whose definitions depend on no dynamic name (in program order).
void computeStatic(CompiledModel& cm, const std::vector<CInstr>& instrs, const std::vector<char>& dynBuiltin,
                   std::vector<char>& isBind, bool top) {
  auto ok = [&](const Deps& d, const std::vector<int>& group) {
    for (int b : d.builtins)
      if (dynBuiltin[static_cast<size_t>(b)]) return false;
    for (int s : d.slots) {
      if (s < 0) return false;
      if (std::find(group.begin(), group.end(), s) != group.end()) continue;
      if (isBind[static_cast<size_t>(s)] && !cm.staticSlot[static_cast<size_t>(s)]) return false;
    }
    return true;
  };
  // A subexpression of a top-level definition is static when it reads no dynamic built-in and only top-level
  // names already known static (not those of its own `let rec` group, unless the group is static).
  auto isStatic = [&](const CExpr* e) {
    Deps d;
    collectDeps(e, 0, d);
    return ok(d, {});
  };
  std::unordered_map<int, const CExpr*> diagSlots;  // top slot of a static `let x = [S]` -> S
  for (const auto& in : instrs) {
    if (in.op == IOp::Let || in.op == IOp::LetRec) {
      std::vector<int> group;
      if (in.op == IOp::LetRec)
        for (const auto& b : in.binds) group.insert(group.end(), b.slots.begin(), b.slots.end());
      bool groupOk = true;
      for (const auto& b : in.binds) {
        Deps d;
        collectDeps(b.expr, 0, d);
        bool st = ok(d, group);
        groupOk = groupOk && st;
        for (int s : b.slots)
          if (s >= 0) {
            isBind[static_cast<size_t>(s)] = 1;
            cm.staticSlot[static_cast<size_t>(s)] = st && !b.tuple;
          }
      }
      if (in.op == IOp::LetRec && !groupOk)
        for (int s : group)
          if (s >= 0) cm.staticSlot[static_cast<size_t>(s)] = 0;
      if (top)
        for (const auto& b : in.binds) {
          if (b.isFun || b.tuple || b.slots.size() != 1 || b.slots[0] < 0) continue;
          const auto slot = static_cast<size_t>(b.slots[0]);
          if (!cm.staticSlot[slot]) {
            cacheStatic(cm, b.expr, isStatic, diagSlots);
          } else if (in.op == IOp::Let && b.expr->op == Op::Diag) {  // every binding has a slot of its own
            diagSlots[b.slots[0]] = b.expr->args[0];
            cacheStatic(cm, b.expr->args[0], isStatic, diagSlots);
          }
        }
    } else if (in.op == IOp::Check && top && in.expr) {
      cacheStatic(cm, in.expr, isStatic, diagSlots);
    } else if (in.op == IOp::With) {
      isBind[static_cast<size_t>(in.varSlot)] = 1;
      cm.staticSlot[static_cast<size_t>(in.varSlot)] = 0;
    } else if (in.op == IOp::If || in.op == IOp::Match) {
      // definitions under a run-time condition are never static
      std::vector<const std::vector<CInstr>*> bodies{&in.body, &in.elseBody};
      for (const auto& b : in.armBodies) bodies.push_back(&b);
      for (const auto* body : bodies) {
        computeStatic(cm, *body, dynBuiltin, isBind, false);
        markDynamic(cm, *body, isBind);
      }
    }
  }
}

}  // namespace

CompiledModel compileModel(const Model& model, const InterpreterOptions& opts) {
  CompiledModel cm;
  Compiler c(cm, opts);
  c.compileTop(model);
  cm.builtinFallback.resize(cm.builtinNames.size(), nullptr);
  cm.builtinFallbackSlots.resize(cm.builtinNames.size(), 0);
  std::sort(cm.emptyBound.begin(), cm.emptyBound.end());
  std::vector<char> dyn(cm.builtinNames.size(), 0);
  for (size_t i = 0; i < cm.builtinNames.size(); ++i)
    dyn[i] =
        std::find(opts.dynamicNames.begin(), opts.dynamicNames.end(), cm.builtinNames[i]) != opts.dynamicNames.end();
  // A herd7 fallback is dynamic if it reads a dynamic built-in (to a fixpoint: fallbacks read fallbacks).
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < cm.builtinNames.size(); ++i) {
      if (dyn[i] || !cm.builtinFallback[i]) continue;
      Deps d;
      collectDeps(cm.builtinFallback[i], 0, d);
      for (int b : d.builtins)
        if (dyn[static_cast<size_t>(b)]) {
          dyn[i] = 1;
          changed = true;
          break;
        }
    }
  }
  cm.staticSlot.assign(static_cast<size_t>(cm.topSlots), 0);
  std::vector<char> isBind(static_cast<size_t>(cm.topSlots), 0);
  computeStatic(cm, cm.top, dyn, isBind, true);
  cm.dynamicBuiltin = dyn;
  return cm;
}

std::shared_ptr<const CompiledModel> compileModelShared(const Model& model, const InterpreterOptions& opts) {
  struct Entry {
    Model model;  // keeps the files (and so the key's addresses) alive
    InterpreterOptions opts;
    std::shared_ptr<const CompiledModel> compiled;
  };
  static std::mutex mutex;
  static std::vector<Entry> cache;
  constexpr size_t kMaxEntries = 64;
  auto same = [&](const Entry& e) {
    return e.model.main == model.main && e.model.prelude == model.prelude && e.opts.variants == opts.variants &&
           e.opts.skipChecks == opts.skipChecks && e.opts.dynamicNames == opts.dynamicNames;
  };
  {
    std::lock_guard lock(mutex);
    for (const auto& e : cache)
      if (same(e)) return e.compiled;
  }
  auto compiled = std::make_shared<const CompiledModel>(compileModel(model, opts));
  std::lock_guard lock(mutex);
  if (cache.size() >= kMaxEntries) cache.clear();
  cache.push_back(Entry{model, opts, compiled});
  return compiled;
}

}  // namespace ptxmm::cat::detail
