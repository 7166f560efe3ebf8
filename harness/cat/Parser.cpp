#include "cat/Parser.hpp"

#include <utility>

#include "cat/Lexer.hpp"

namespace ptxmm::cat {

namespace {

class Parser {
 public:
  Parser(std::string_view text, const std::string& file) : toks_(lexCat(text, file)) {}

  ModelFile parseFile(const std::string& file) {
    ModelFile mf;
    mf.path = file;
    // Header: ID ID | ID "string" | ID | "string" (never a keyword).
    // herd also accepts "string" ID (e.g. `"Generate co's" withoutco`): the title is the string then.
    if (cur().kind == Tok::String) {
      mf.title = next().text;
      if (cur().kind == Tok::Ident) next();
    } else if (cur().kind == Tok::Ident) {
      mf.title = next().text;
      if (cur().kind == Tok::String || cur().kind == Tok::Ident) mf.title = next().text;
    }
    if (isKw("catdep")) next();
    while (cur().kind != Tok::End) mf.instrs.push_back(parseInstr(true));
    return mf;
  }

  ExprPtr parseOnlyExpr() {
    ExprPtr e = parseExpr();
    if (cur().kind != Tok::End) fail("unexpected " + describe(cur()) + " after expression");
    return e;
  }

 private:
  std::vector<Token> toks_;
  size_t pos_ = 0;

  const Token& cur() const { return toks_[pos_]; }
  const Token& peekTok(size_t k) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  const Token& next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool isKw(std::string_view k) const { return cur().kind == Tok::Keyword && cur().text == k; }
  bool isP(std::string_view p) const { return cur().kind == Tok::Punct && cur().text == p; }
  static bool tokIsP(const Token& t, std::string_view p) { return t.kind == Tok::Punct && t.text == p; }

  static std::string describe(const Token& t) {
    switch (t.kind) {
      case Tok::End: return "end of file";
      case Tok::Ident: return "identifier '" + t.text + "'";
      case Tok::Keyword: return "keyword '" + t.text + "'";
      case Tok::TagLit: return "tag '" + t.text + "'";
      case Tok::String: return "string \"" + t.text + "\"";
      case Tok::Num: return "number " + t.text;
      case Tok::Punct: return "'" + t.text + "'";
    }
    return "token";
  }
  [[noreturn]] void fail(const std::string& msg) const { throw DiagnosticError(cur().loc, msg); }
  void expectP(std::string_view p) {
    if (!isP(p)) fail("expected '" + std::string(p) + "', found " + describe(cur()));
    next();
  }
  void expectKw(std::string_view k) {
    if (!isKw(k)) fail("expected '" + std::string(k) + "', found " + describe(cur()));
    next();
  }
  std::string expectIdent(const char* what) {
    if (cur().kind != Tok::Ident) fail(std::string("expected ") + what + ", found " + describe(cur()));
    return next().text;
  }

  static ExprPtr mk(ExprKind k, SourceLoc loc, std::vector<ExprPtr> args = {}) {
    auto e = std::make_shared<Expr>();
    e->kind = k;
    e->loc = std::move(loc);
    e->args = std::move(args);
    return e;
  }

  // ---- expressions -------------------------------------------------------------------------

  bool startsAtom(const Token& t) const {
    switch (t.kind) {
      case Tok::Ident:
      case Tok::TagLit:
      case Tok::String:
      case Tok::Num: return true;
      case Tok::Punct: return t.text == "_" || t.text == "{" || t.text == "[" || t.text == "(";
      case Tok::Keyword: return t.text == "begin";
      default: return false;
    }
  }
  bool startsExpr(const Token& t) const {
    if (startsAtom(t)) return true;
    if (t.kind == Tok::Punct && t.text == "~") return true;
    if (t.kind == Tok::Keyword)
      return t.text == "fun" || t.text == "let" || t.text == "match" || t.text == "if" || t.text == "try";
    return false;
  }

  // An operand of binary `*` (as opposed to postfix `*`): an atom or a complement, but not the
  // start of a check instruction `~acyclic ...`.
  bool startsCrossOperand() const {
    const Token& t = peekTok(1);
    if (startsAtom(t)) return true;
    if (t.kind == Tok::Punct && t.text == "~") return peekTok(2).kind != Tok::Keyword;
    return false;
  }

  ExprPtr parseExpr() {
    Nest n(*this);
    return parseUnion();
  }

  static constexpr int kMaxNesting = 400;  ///< bound on expression nesting (no stack overflow)
  int nesting_ = 0;
  struct Nest {
    Parser& p;
    explicit Nest(Parser& p) : p(p) {
      if (++p.nesting_ > kMaxNesting) p.fail("expression nested too deeply");
    }
    ~Nest() { --p.nesting_; }
  };

  // level 1: | (n-ary)
  ExprPtr parseUnion() {
    SourceLoc loc = cur().loc;
    ExprPtr first = parseAdd();
    if (!isP("|")) return first;
    std::vector<ExprPtr> args{first};
    while (isP("|")) {
      next();
      args.push_back(parseAdd());
    }
    return mk(ExprKind::Union, loc, std::move(args));
  }
  // level 2: ++ (right)
  ExprPtr parseAdd() {
    SourceLoc loc = cur().loc;
    ExprPtr lhs = parseSeq();
    if (!isP("++")) return lhs;
    next();
    return mk(ExprKind::Add, loc, {lhs, parseAdd()});
  }
  // level 3: ; (n-ary, associative)
  ExprPtr parseSeq() {
    SourceLoc loc = cur().loc;
    ExprPtr first = parseDiff();
    if (!isP(";")) return first;
    std::vector<ExprPtr> args{first};
    while (isP(";")) {
      next();
      args.push_back(parseDiff());
    }
    return mk(ExprKind::Seq, loc, std::move(args));
  }
  // level 4: \ (left)
  ExprPtr parseDiff() {
    SourceLoc loc = cur().loc;
    ExprPtr lhs = parseInter();
    while (isP("\\")) {
      next();
      lhs = mk(ExprKind::Diff, loc, {lhs, parseInter()});
    }
    return lhs;
  }
  // level 5: & (right)
  ExprPtr parseInter() {
    SourceLoc loc = cur().loc;
    ExprPtr lhs = parseCross();
    if (!isP("&")) return lhs;
    next();
    return mk(ExprKind::Inter, loc, {lhs, parseInter()});
  }
  // level 6: S * T (non-associative)
  ExprPtr parseCross() {
    SourceLoc loc = cur().loc;
    ExprPtr lhs = parsePostfix();
    if (isP("*") && startsCrossOperand()) {
      next();
      ExprPtr rhs = parsePostfix();
      if (isP("*") && startsCrossOperand()) fail("'*' (cartesian product) is not associative: add parentheses");
      return mk(ExprKind::Cross, loc, {lhs, rhs});
    }
    return lhs;
  }
  // level 6: postfix * + ? (applied to a possibly complemented operand)
  ExprPtr parsePostfix() {
    SourceLoc loc = cur().loc;
    ExprPtr e = parseUnary();
    for (;;) {
      if (isP("*") && !startsCrossOperand()) {
        next();
        e = mk(ExprKind::Star, loc, {e});
      } else if (isP("+")) {
        next();
        e = mk(ExprKind::Plus, loc, {e});
      } else if (isP("?")) {
        next();
        e = mk(ExprKind::Opt, loc, {e});
      } else {
        return e;
      }
    }
  }
  ExprPtr parseUnary() {
    if (isP("~")) {
      SourceLoc loc = next().loc;
      Nest n(*this);
      return mk(ExprKind::Complement, loc, {parseUnary()});
    }
    return parseInverse();
  }
  // level 7: ^-1
  ExprPtr parseInverse() {
    SourceLoc loc = cur().loc;
    ExprPtr e = parseApp();
    while (isP("^-1")) {
      next();
      e = mk(ExprKind::Inverse, loc, {e});
    }
    return e;
  }
  // application (left-assoc)
  ExprPtr parseApp() {
    SourceLoc loc = cur().loc;
    ExprPtr f = parseAtom();
    while (startsAtom(cur())) {
      ExprPtr arg = parseAtom();
      f = mk(ExprKind::App, loc, {f, arg});
    }
    return f;
  }

  ExprPtr parseAtom() {
    const Token& t = cur();
    SourceLoc loc = t.loc;
    switch (t.kind) {
      case Tok::Ident: {
        auto e = mk(ExprKind::Var, loc);
        std::const_pointer_cast<Expr>(e)->name = next().text;
        return e;
      }
      case Tok::TagLit: {
        auto e = std::make_shared<Expr>();
        e->kind = ExprKind::Tag;
        e->loc = loc;
        e->name = next().text;
        return e;
      }
      case Tok::String: {
        auto e = std::make_shared<Expr>();
        e->kind = ExprKind::Str;
        e->loc = loc;
        e->name = next().text;
        return e;
      }
      case Tok::Num:
        if (t.text != "0") fail("only the number 0 (the empty relation) is allowed, found " + t.text);
        next();
        return mk(ExprKind::Zero, loc);
      case Tok::Punct:
        if (t.text == "_") {
          next();
          return mk(ExprKind::Universe, loc);
        }
        if (t.text == "{") {
          next();
          if (isP("}")) {
            next();
            return mk(ExprKind::EmptySet, loc);
          }
          std::vector<ExprPtr> elems{parseExpr()};
          while (isP(",")) {
            next();
            elems.push_back(parseExpr());
          }
          expectP("}");
          return mk(ExprKind::ExplicitSet, loc, std::move(elems));
        }
        if (t.text == "[") {
          next();
          ExprPtr e = parseExpr();
          expectP("]");
          return mk(ExprKind::Diag, loc, {e});
        }
        if (t.text == "(") {
          next();
          if (isP(")")) {
            next();
            return mk(ExprKind::Tuple, loc);
          }
          ExprPtr e = parseExpr();
          if (isP(",")) {
            std::vector<ExprPtr> elems{e};
            while (isP(",")) {
              next();
              elems.push_back(parseExpr());
            }
            expectP(")");
            return mk(ExprKind::Tuple, loc, std::move(elems));
          }
          expectP(")");
          return e;
        }
        break;
      case Tok::Keyword:
        if (t.text == "begin") {
          next();
          ExprPtr e = parseExpr();
          expectKw("end");
          return e;
        }
        if (t.text == "fun") return parseFun();
        if (t.text == "let") return parseLetExpr();
        if (t.text == "match") return parseMatchExpr();
        if (t.text == "if") return parseIfExpr();
        if (t.text == "try") {
          next();
          ExprPtr a = parseExpr();
          expectKw("with");
          ExprPtr b = parseExpr();
          return mk(ExprKind::Try, loc, {a, b});
        }
        break;
      default: break;
    }
    fail("expected an expression, found " + describe(t));
  }

  Pattern parsePattern() {
    Pattern p;
    p.loc = cur().loc;
    if (isP("(")) {
      next();
      p.tuple = true;
      if (!isP(")")) {
        p.names.push_back(parsePatName());
        while (isP(",")) {
          next();
          p.names.push_back(parsePatName());
        }
      }
      expectP(")");
      if (p.names.size() == 1) p.tuple = false;  // (x) is just x
      return p;
    }
    p.names.push_back(parsePatName());
    return p;
  }
  std::string parsePatName() {
    if (isP("_")) {
      next();
      return "_";
    }
    return expectIdent("a name");
  }

  ExprPtr parseFun() {
    SourceLoc loc = next().loc;  // fun
    auto e = std::make_shared<Expr>();
    e->kind = ExprKind::Fun;
    e->loc = loc;
    e->param = parsePattern();
    expectP("->");
    e->args.push_back(parseExpr());
    return e;
  }

  // binding: p = e | f(params) = e | f x y = e
  Binding parseBinding() {
    Binding b;
    b.loc = cur().loc;
    if (isP("(")) {
      b.pat = parsePattern();
      expectP("=");
      b.expr = parseExpr();
      return b;
    }
    b.pat.loc = cur().loc;
    b.pat.names.push_back(parsePatName());
    if (isP(",")) {
      // `let a, b = e`: a tuple pattern without parentheses
      b.pat.tuple = true;
      while (isP(",")) {
        next();
        b.pat.names.push_back(parsePatName());
      }
      expectP("=");
      b.expr = parseExpr();
      return b;
    }
    std::vector<Pattern> params;
    while (!isP("=")) {
      if (isP("(") || cur().kind == Tok::Ident || isP("_")) {
        params.push_back(parsePattern());
      } else {
        fail("expected '=' in binding of '" + b.pat.names[0] + "', found " + describe(cur()));
      }
    }
    next();  // =
    ExprPtr body = parseExpr();
    for (size_t k = params.size(); k-- > 0;) {
      auto f = std::make_shared<Expr>();
      f->kind = ExprKind::Fun;
      f->loc = b.loc;
      f->param = params[k];
      f->args.push_back(body);
      f->name = b.pat.names[0];
      body = f;
    }
    b.expr = body;
    return b;
  }
  std::vector<Binding> parseBindings() {
    std::vector<Binding> bs{parseBinding()};
    while (isKw("and")) {
      next();
      bs.push_back(parseBinding());
    }
    return bs;
  }

  ExprPtr parseLetExpr() {
    SourceLoc loc = next().loc;  // let
    auto e = std::make_shared<Expr>();
    e->kind = ExprKind::Let;
    e->loc = loc;
    if (isKw("rec")) {
      next();
      e->kind = ExprKind::LetRec;
    }
    e->bindings = parseBindings();
    expectKw("in");
    e->args.push_back(parseExpr());
    return e;
  }

  // match arm pattern for expression and instruction forms
  MatchArm parseArmHead(bool& isSetArm, bool& isTagArm) {
    MatchArm a;
    a.loc = cur().loc;
    if (cur().kind == Tok::TagLit) {
      a.tag = next().text;
      isTagArm = true;
    } else if (isP("_")) {
      next();
      a.tag = "";
    } else if (isP("{")) {
      next();
      expectP("}");
      a.emptyArm = true;
      isSetArm = true;
    } else if (cur().kind == Tok::Ident) {
      std::string first = next().text;
      isSetArm = true;
      if (isP("|")) {
        next();
        a.below = first;
        a.elem = expectIdent("an element name");
      } else {
        a.elem = first;
      }
      expectP("++");
      a.rest = parsePatName();
    } else {
      fail("expected a match pattern (tag, _, {} or x ++ rest), found " + describe(cur()));
    }
    expectP("->");
    return a;
  }

  ExprPtr parseMatchExpr() {
    SourceLoc loc = next().loc;  // match
    auto e = std::make_shared<Expr>();
    e->loc = loc;
    e->args.push_back(parseExpr());
    expectKw("with");
    if (isP("||")) next();
    bool isSet = false, isTag = false;
    for (;;) {
      MatchArm a = parseArmHead(isSet, isTag);
      a.body = parseExpr();
      e->arms.push_back(std::move(a));
      if (isP("||")) {
        next();
        continue;
      }
      break;
    }
    expectKw("end");
    if (isSet && isTag) throw DiagnosticError(loc, "match mixes tag patterns and set patterns");
    e->kind = isSet ? ExprKind::MatchSet : ExprKind::MatchTag;
    return e;
  }

  CondPtr parseCond() {
    auto lhs = parseCondAnd();
    while (isP("||")) {
      SourceLoc loc = next().loc;
      auto c = std::make_shared<Cond>();
      c->kind = Cond::Kind::Or;
      c->loc = loc;
      c->sub = {std::const_pointer_cast<Cond>(lhs), std::const_pointer_cast<Cond>(parseCondAnd())};
      lhs = c;
    }
    return lhs;
  }
  CondPtr parseCondAnd() {
    auto lhs = parseCondNot();
    while (isP("&&")) {
      SourceLoc loc = next().loc;
      auto c = std::make_shared<Cond>();
      c->kind = Cond::Kind::And;
      c->loc = loc;
      c->sub = {std::const_pointer_cast<Cond>(lhs), std::const_pointer_cast<Cond>(parseCondNot())};
      lhs = c;
    }
    return lhs;
  }
  CondPtr parseCondNot() {
    auto c = std::make_shared<Cond>();
    c->loc = cur().loc;
    if (isKw("not")) {
      next();
      c->kind = Cond::Kind::Not;
      c->sub = {std::const_pointer_cast<Cond>(parseCondNot())};
      return c;
    }
    if (cur().kind == Tok::String) {
      c->kind = Cond::Kind::Variant;
      c->variant = next().text;
      return c;
    }
    if (isKw("variant")) {
      next();
      if (cur().kind != Tok::String) fail("expected a variant name string after 'variant'");
      c->kind = Cond::Kind::Variant;
      c->variant = next().text;
      return c;
    }
    c->lhs = parseExpr();
    if (isP("=")) {
      c->kind = Cond::Kind::Eq;
    } else if (isKw("subset")) {
      c->kind = Cond::Kind::Subset;
    } else if (isKw("in")) {
      c->kind = Cond::Kind::In;
    } else {
      fail("expected '=', 'subset' or 'in' in condition, found " + describe(cur()));
    }
    next();
    c->rhs = parseExpr();
    return c;
  }

  ExprPtr parseIfExpr() {
    SourceLoc loc = next().loc;  // if
    auto e = std::make_shared<Expr>();
    e->kind = ExprKind::If;
    e->loc = loc;
    e->cond = parseCond();
    expectKw("then");
    e->args.push_back(parseExpr());
    expectKw("else");
    e->args.push_back(parseExpr());
    return e;
  }

  // ---- instructions ------------------------------------------------------------------------

  bool atBodyEnd() const { return cur().kind == Tok::End || isKw("end") || isKw("else") || isP("||"); }
  std::vector<InstrPtr> parseBody() {
    std::vector<InstrPtr> body;
    while (!atBodyEnd()) body.push_back(parseInstr(false));
    return body;
  }

  InstrPtr parseInstr(bool topLevel) {
    auto in = std::make_shared<Instr>();
    in->loc = cur().loc;
    const Token& t = cur();
    if (t.kind == Tok::Keyword) {
      const std::string& k = t.text;
      if (k == "let") {
        next();
        in->kind = InstrKind::Let;
        if (isKw("rec")) {
          next();
          in->kind = InstrKind::LetRec;
        }
        in->bindings = parseBindings();
        if (isKw("when")) {
          // `let rec ... when TEST`: TEST must hold of the fixpoint (herd checks it at every iteration and
          // stops early; for the monotone definitions let rec is meant for, the verdict is the same).
          if (in->kind != InstrKind::LetRec) fail("'when' is only allowed after 'let rec'");
          next();
          in->when = true;
          parseCheckTest(*in);
          return in;
        }
        if (isKw("in")) {
          // `let ... in e` at instruction level: the bindings are local to e, whose value is unused (herd
          // parses it as an expression evaluated for its errors only).
          next();
          auto e = std::make_shared<Expr>();
          e->kind = in->kind == InstrKind::LetRec ? ExprKind::LetRec : ExprKind::Let;
          in->kind = InstrKind::Debug;
          e->loc = in->loc;
          e->bindings = std::move(in->bindings);
          in->bindings.clear();
          e->args.push_back(parseExpr());
          in->expr = e;
          return in;
        }
        return in;
      }
      if (k == "flag" || k == "undefined_unless" || k == "assert" || k == "acyclic" || k == "irreflexive" ||
          k == "empty")
        return parseCheck(in);
      if (k == "show" || k == "unshow") {
        next();
        in->kind = k == "show" ? InstrKind::Show : InstrKind::Unshow;
        if (in->kind == InstrKind::Unshow) {
          in->names.push_back(expectIdent("a name"));
          while (isP(",")) {
            next();
            in->names.push_back(expectIdent("a name"));
          }
          return in;
        }
        ExprPtr e = parseExpr();
        if (isKw("as")) {
          next();
          in->expr = e;
          in->name = parseCheckName();
          return in;
        }
        if (e->kind != ExprKind::Var) throw DiagnosticError(e->loc, "'show' of an expression needs 'as name'");
        in->names.push_back(e->name);
        while (isP(",")) {
          next();
          in->names.push_back(expectIdent("a name"));
        }
        return in;
      }
      if (k == "include") {
        next();
        if (cur().kind != Tok::String) fail("expected a file name string after 'include'");
        in->kind = InstrKind::Include;
        in->name = next().text;
        return in;
      }
      if (k == "procedure") {
        next();
        in->kind = InstrKind::Procedure;
        if (isKw("rec")) {
          next();
          in->recursive = true;
        }
        in->name = expectIdent("a procedure name");
        if (isP("=")) {
          in->param.tuple = true;  // procedure p = ... (no parameter): called as p()
        } else {
          in->param = parsePattern();
        }
        expectP("=");
        in->body = parseBody();
        expectKw("end");
        return in;
      }
      if (k == "call") {
        next();
        in->kind = InstrKind::Call;
        in->name = expectIdent("a procedure name");
        in->expr = parseAtom();
        if (isKw("as")) {
          next();
          in->names.push_back(parseCheckName());
        }
        return in;
      }
      if (k == "forall") {
        next();
        in->kind = InstrKind::Forall;
        in->name = expectIdent("a variable name");
        expectKw("in");
        in->expr = parseExpr();
        expectKw("do");
        in->body = parseBody();
        expectKw("end");
        return in;
      }
      if (k == "with") {
        next();
        in->kind = InstrKind::With;
        in->name = expectIdent("a variable name");
        expectKw("from");
        in->expr = parseExpr();
        return in;
      }
      if (k == "enum") {
        next();
        in->kind = InstrKind::Enum;
        in->name = expectIdent("an enum name");
        expectP("=");
        if (isP("||")) next();
        for (;;) {
          if (cur().kind != Tok::TagLit) fail("expected a tag in enum, found " + describe(cur()));
          in->names.push_back(next().text);
          if (!isP("||")) break;
          next();
        }
        return in;
      }
      if (k == "if") {
        next();
        in->kind = InstrKind::If;
        in->cond = parseCond();
        if (isKw("then")) next();
        in->body = parseBody();
        if (isKw("else")) {
          next();
          in->elseBody = parseBody();
        }
        expectKw("end");
        return in;
      }
      if (k == "match") {
        next();
        in->kind = InstrKind::Match;
        in->expr = parseExpr();
        expectKw("with");
        if (isP("||")) next();
        bool isSet = false, isTag = false;
        for (;;) {
          MatchArm a = parseArmHead(isSet, isTag);
          in->arms.push_back(std::move(a));
          in->armBodies.push_back(parseBody());
          if (isP("||")) {
            next();
            continue;
          }
          break;
        }
        if (isSet) throw DiagnosticError(in->loc, "instruction-level match supports tag patterns only");
        expectKw("end");
        return in;
      }
      if (k == "debug") {
        next();
        in->kind = InstrKind::Debug;
        in->expr = parseExpr();
        return in;
      }
      if (k == "instructions" || k == "default") {
        next();
        in->kind = InstrKind::Instructions;
        expectIdent("an instruction kind");
        expectP("[");
        int depth = 1;
        while (depth > 0) {
          if (cur().kind == Tok::End) fail("unterminated '[' in instructions declaration");
          if (isP("[")) ++depth;
          if (isP("]")) --depth;
          next();
        }
        return in;
      }
    }
    if (isP("~")) return parseCheck(in);
    (void)topLevel;
    fail("expected an instruction, found " + describe(t));
  }

  std::string parseCheckName() {
    if (cur().kind == Tok::Ident || cur().kind == Tok::Keyword) return next().text;
    if (cur().kind == Tok::String) return next().text;
    fail("expected a name after 'as', found " + describe(cur()));
  }

  InstrPtr parseCheck(std::shared_ptr<Instr> in) {
    in->kind = InstrKind::Check;
    if (isKw("flag")) {
      next();
      in->checkKind = CheckKind::Flag;
    } else if (isKw("undefined_unless")) {
      next();
      in->checkKind = CheckKind::Undefined;
    } else if (isKw("assert")) {
      next();
      in->checkKind = CheckKind::Assert;
    }
    parseCheckTest(*in);
    return in;
  }

  // [~]acyclic|irreflexive|empty e [as name], into in.negated / test / expr / name.
  void parseCheckTest(Instr& in) {
    if (isP("~")) {
      next();
      in.negated = true;
    }
    if (isKw("acyclic"))
      in.test = CheckTest::Acyclic;
    else if (isKw("irreflexive"))
      in.test = CheckTest::Irreflexive;
    else if (isKw("empty"))
      in.test = CheckTest::Empty;
    else
      fail("expected 'acyclic', 'irreflexive' or 'empty', found " + describe(cur()));
    next();
    in.expr = parseExpr();
    if (isKw("as")) {
      next();
      in.name = parseCheckName();
    }
  }
};

void print(const Expr& e, std::string& out);

void printArgs(const Expr& e, const char* op, std::string& out) {
  out += "(";
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (i) out += op;
    print(*e.args[i], out);
  }
  out += ")";
}

void print(const Expr& e, std::string& out) {
  switch (e.kind) {
    case ExprKind::EmptySet: out += "{}"; return;
    case ExprKind::Zero: out += "0"; return;
    case ExprKind::Universe: out += "_"; return;
    case ExprKind::Var: out += e.name; return;
    case ExprKind::Tag: out += "'" + e.name; return;
    case ExprKind::Str: out += "\"" + e.name + "\""; return;
    case ExprKind::Union: printArgs(e, " | ", out); return;
    case ExprKind::Inter: printArgs(e, " & ", out); return;
    case ExprKind::Diff: printArgs(e, " \\ ", out); return;
    case ExprKind::Seq: printArgs(e, " ; ", out); return;
    case ExprKind::Cross: printArgs(e, " * ", out); return;
    case ExprKind::Add: printArgs(e, " ++ ", out); return;
    case ExprKind::Star:
      printArgs(e, "", out);
      out += "*";
      return;
    case ExprKind::Plus:
      printArgs(e, "", out);
      out += "+";
      return;
    case ExprKind::Opt:
      printArgs(e, "", out);
      out += "?";
      return;
    case ExprKind::Complement:
      out += "~";
      printArgs(e, "", out);
      return;
    case ExprKind::Inverse:
      printArgs(e, "", out);
      out += "^-1";
      return;
    case ExprKind::Diag:
      out += "[";
      print(*e.args[0], out);
      out += "]";
      return;
    case ExprKind::App:
      out += "(";
      print(*e.args[0], out);
      out += " ";
      print(*e.args[1], out);
      out += ")";
      return;
    case ExprKind::Tuple: printArgs(e, ", ", out); return;
    case ExprKind::ExplicitSet:
      out += "{";
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (i) out += ", ";
        print(*e.args[i], out);
      }
      out += "}";
      return;
    case ExprKind::Fun: {
      out += "(fun ";
      if (e.param.tuple) out += "(";
      for (size_t i = 0; i < e.param.names.size(); ++i) out += (i ? ", " : "") + e.param.names[i];
      if (e.param.tuple) out += ")";
      out += " -> ";
      print(*e.args[0], out);
      out += ")";
      return;
    }
    case ExprKind::Let:
    case ExprKind::LetRec:
      out += e.kind == ExprKind::Let ? "(let " : "(let rec ";
      for (size_t i = 0; i < e.bindings.size(); ++i) {
        if (i) out += " and ";
        for (const auto& n : e.bindings[i].pat.names) out += n;
        out += " = ";
        print(*e.bindings[i].expr, out);
      }
      out += " in ";
      print(*e.args[0], out);
      out += ")";
      return;
    case ExprKind::MatchTag:
    case ExprKind::MatchSet: out += "(match ...)"; return;
    case ExprKind::If: out += "(if ...)"; return;
    case ExprKind::Try:
      out += "(try ";
      print(*e.args[0], out);
      out += " with ";
      print(*e.args[1], out);
      out += ")";
      return;
  }
}

}  // namespace

ModelFile parseCatFile(std::string_view text, const std::string& file) { return Parser(text, file).parseFile(file); }

ExprPtr parseCatExpr(std::string_view text, const std::string& file) { return Parser(text, file).parseOnlyExpr(); }

std::string exprToString(const Expr& e) {
  std::string out;
  print(e, out);
  return out;
}

}  // namespace ptxmm::cat
