// cat lexer/parser: herd7 7.58 precedence and associativity, lexical rules, syntax errors.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>

#include "cat/BitAlgebra.hpp"
#include "cat/Interpreter.hpp"
#include "cat/Lexer.hpp"
#include "cat/Model.hpp"
#include "cat/Parser.hpp"

using namespace ptxmm::cat;

namespace {
std::string p(const char* text) { return exprToString(*parseCatExpr(text)); }

std::string errorOf(const std::string& text) {
  try {
    (void)parseCatFile(text, "m.cat");
  } catch (const ptxmm::DiagnosticError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("precedence of cat operators (cat-language.md section 4)", "[cat][parser]") {
  CHECK(p("a \\ b & c") == "(a \\ (b & c))");
  CHECK(p("po & loc ; x") == "((po & loc) ; x)");
  CHECK(p("g po*") == "((g po))*");
  CHECK(p("po-loc & W*W | po-loc & W*R") == "((po-loc & (W * W)) | (po-loc & (W * R)))");
  CHECK(p("~a ; b") == "(~(a) ; b)");
  CHECK(p("a | b ; c") == "(a | (b ; c))");
  CHECK(p("a ; b \\ c") == "(a ; (b \\ c))");
  CHECK(p("a \\ b \\ c") == "((a \\ b) \\ c)");
  CHECK(p("a & b & c") == "(a & (b & c))");
  CHECK(p("r^-1 ; s") == "((r)^-1 ; s)");
  CHECK(p("f x^-1") == "((f x))^-1");
  CHECK(p("e ++ s | t") == "((e ++ s) | t)");
  CHECK(p("a ; e ++ s") == "((a ; e) ++ s)");
  CHECK(p("r+ | s? ; t*") == "((r)+ | ((s)? ; (t)*))");
  CHECK(p("[R] ; po ; [W]") == "([R] ; po ; [W])");
  CHECK(p("(po | rf)+") == "((po | rf))+");
  CHECK(p("fencerel(F & SC)") == "(fencerel (F & SC))");
  CHECK(p("linearisations(F, 0)") == "(linearisations (F, 0))");
  CHECK(p("f a b") == "((f a) b)");
  CHECK(p("_ * _") == "(_ * _)");
  CHECK(p("{}") == "{}");
  CHECK(p("{a, b}") == "{a, b}");
  CHECK(p("fun x -> x | y") == "(fun x -> (x | y))");
  CHECK(p("let x = a in x ; x") == "(let x = a in (x ; x))");
  CHECK(p("try fencerel(MFENCE) with 0") == "(try (fencerel MFENCE) with 0)");
  CHECK(p("W * (R | W)") == "(W * (R | W))");
  CHECK(p("~R * W") == "(~(R) * W)");
  CHECK(p("R * ~W") == "(R * ~(W))");
  CHECK(exprToString(*parseCatFile("let a = r*\nlet b = s", "m").instrs[0]->bindings[0].expr) == "(r)*");
  CHECK(exprToString(*parseCatFile("let a = r*\n~empty s", "m").instrs[0]->bindings[0].expr) == "(r)*");
}

TEST_CASE("lexical rules: identifiers, comments, tags, ^-1", "[cat][parser]") {
  auto toks = lexCat("po-loc DMB.ISH rmo-cta 'acq_rel \"s\" r^-1 (* a (* nested *) c *) // x\n# y\n x'", "t");
  REQUIRE(toks.size() == 9);
  CHECK(toks[0].text == "po-loc");
  CHECK(toks[1].text == "DMB.ISH");
  CHECK(toks[2].text == "rmo-cta");
  CHECK(toks[3].kind == Tok::TagLit);
  CHECK(toks[3].text == "acq_rel");
  CHECK(toks[4].kind == Tok::String);
  CHECK(toks[6].text == "^-1");
  CHECK(toks[7].text == "x'");
  CHECK(toks[7].loc.line == 3);
  CHECK(toks[7].loc.col == 2);
  CHECK(toks[8].kind == Tok::End);
}

TEST_CASE("instructions parse into the AST", "[cat][parser]") {
  const char* text = R"(PTX "test model"
include "cos.cat"
let com = rf | co | fr
let f(x, y) = x ; y and g z = z
let rec t = po | (t ; t)
acyclic po | com as sc
flag ~empty (po & loc) as race
undefined_unless empty 0
show com as com2
show po, rf
unshow po
enum Sem = 'rlx || 'acq
procedure p(x) = acyclic x end
call p(po) as pp
forall s in {po} do empty s \ s end
with c from linearisations(W, 0)
if "v1" acyclic po else empty po end
instructions R[{'rlx}]
)";
  ModelFile mf = parseCatFile(text, "m.cat");
  CHECK(mf.title == "test model");
  REQUIRE(mf.instrs.size() == 17);
  CHECK(mf.instrs[0]->kind == InstrKind::Include);
  CHECK(mf.instrs[2]->bindings.size() == 2);
  CHECK(mf.instrs[2]->bindings[0].expr->kind == ExprKind::Fun);
  CHECK(mf.instrs[2]->bindings[0].expr->param.tuple);
  CHECK(mf.instrs[3]->kind == InstrKind::LetRec);
  const Instr& flag = *mf.instrs[5];
  CHECK(flag.kind == InstrKind::Check);
  CHECK(flag.checkKind == CheckKind::Flag);
  CHECK(flag.negated);
  CHECK(flag.test == CheckTest::Empty);
  CHECK(flag.name == "race");
  CHECK(flag.loc.line == 7);
  CHECK(flag.loc.col == 1);
  CHECK(mf.instrs[6]->checkKind == CheckKind::Undefined);
  CHECK(mf.instrs[8]->names.size() == 2);
  CHECK(mf.instrs[10]->names.size() == 2);
  CHECK(mf.instrs[12]->kind == InstrKind::Call);
  CHECK(mf.instrs[14]->kind == InstrKind::With);
  CHECK(mf.instrs[15]->elseBody.size() == 1);
}

TEST_CASE("syntax errors carry file:line:col", "[cat][parser]") {
  CHECK(errorOf("let x = \n  a |") == "m.cat:2:6: error: expected an expression, found end of file");
  CHECK(errorOf("let x = a\nacyclic (po") == "m.cat:2:12: error: expected ')', found end of file");
  CHECK(errorOf("(* open") == "m.cat:1:1: error: unterminated comment");
  CHECK(errorOf("let x = 5") == "m.cat:1:9: error: only the number 0 (the empty relation) is allowed, found 5");
  CHECK(errorOf("let x = a\n  = b") == "m.cat:2:3: error: expected an instruction, found '='");
  CHECK(errorOf("let x = a $ b").find("m.cat:1:11: error: unexpected character '$'") == 0);
  CHECK(errorOf("let x = W * R * W").find("m.cat:1:15: error: '*' (cartesian product) is not associative") == 0);
}

TEST_CASE("every models/*.cat file parses and loads", "[cat][parser][models]") {
  namespace fs = std::filesystem;
  int count = 0;
  for (const auto& entry : fs::directory_iterator(libraryDir())) {
    if (entry.path().extension() != ".cat") continue;
    INFO(entry.path().string());
    CHECK_NOTHROW(loadModel(entry.path()));
    ++count;
  }
  CHECK(count >= 2);  // at least stdlib.cat and cos.cat
}

TEST_CASE("includes: search path, prelude, cycles, missing files", "[cat][parser][include]") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "ptxmm_cat_include_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "lib");
  auto write = [](const fs::path& p, const std::string& text) { std::ofstream(p) << text; };
  write(dir / "main.cat", "M\ninclude \"local.cat\"\ninclude \"fromlib.cat\"\ninclude \"cos.cat\"\nacyclic a | b\n");
  write(dir / "local.cat", "let a = po\n");
  write(dir / "lib" / "fromlib.cat", "let b = rf\n");
  write(dir / "cyc1.cat", "C\ninclude \"cyc2.cat\"\n");
  write(dir / "cyc2.cat", "C\ninclude \"cyc1.cat\"\n");
  write(dir / "missing.cat", "C\n\n  include \"nothere.cat\"\n");

  Model m = loadModel(dir / "main.cat", LoadOptions{{dir / "lib"}, true});
  REQUIRE(m.prelude != nullptr);  // models/stdlib.cat
  CHECK(m.title() == "M");
  REQUIRE(m.main->instrs.size() == 4);
  CHECK(m.main->instrs[0]->included->instrs.size() == 1);
  CHECK(m.main->instrs[1]->included->path == (dir / "lib" / "fromlib.cat").string());
  CHECK(m.main->instrs[2]->included != nullptr);  // models/cos.cat through the library directory
  CHECK_THROWS_WITH(loadModel(dir / "main.cat"), Catch::Contains("cannot find included file 'fromlib.cat'"));
  CHECK_THROWS_WITH(loadModel(dir / "cyc1.cat"), Catch::Contains("include cycle"));
  CHECK_THROWS_WITH(loadModel(dir / "missing.cat"),
                    Catch::Contains("missing.cat:3:3: error: cannot find included file 'nothere.cat'"));
  CHECK_THROWS_WITH(loadModel(dir / "nope.cat"), Catch::Contains("cannot find model file"));
  Model noPrelude = loadModel(dir / "local.cat", LoadOptions{{}, false});
  CHECK(noPrelude.prelude == nullptr);
  fs::remove_all(dir);
}

TEST_CASE("less common forms parse", "[cat][parser]") {
  const char* text = R"(
let f x y = x ; y
let g = begin po end
let h(S) = match S with || {} -> 0 || s1 | x ++ s2 -> po end
procedure noargs() = empty 0 end
call noargs()
~acyclic po as neg
flag ~irreflexive po
if variant "a" && not "b" || "c" then empty 0 end
let t = if po = po then po else 0
let u = (a, b)
let (c, d) = u
)";
  ModelFile mf = parseCatFile(text, "m.cat");
  CHECK(mf.title.empty());
  REQUIRE(mf.instrs.size() == 11);
  CHECK(mf.instrs[5]->negated);
  CHECK(mf.instrs[5]->checkKind == CheckKind::Check);
  CHECK(mf.instrs[6]->test == CheckTest::Irreflexive);
  CHECK(mf.instrs[7]->cond->kind == Cond::Kind::Or);
  CHECK(mf.instrs[10]->bindings[0].pat.tuple);
}

TEST_CASE("mutated models never crash the parser or the interpreter", "[cat][parser][fuzz]") {
  std::string base = R"(SC "fuzz"
let com = rf | co | fr
let rec hb = po | rf | (hb ; hb)
let f(x, y) = (x & y)^-1 ; [W] ; x*
procedure p(r) = acyclic r end
call p(hb)
flag ~empty (po & loc) \ hb as race
with s from linearisations(W, 0)
acyclic po | com | s as sc
let t = match 'a with || 'a -> po || _ -> 0 end
empty domain(t) & range(t) & {} as e
)";
  std::mt19937 rng(11);
  const std::string alphabet = "()[]{}|&;\\*+?~^-1_'\"=,abcWRpo \n";
  int parsed = 0;
  for (int k = 0; k < 3000; ++k) {
    std::string text = base;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % text.size();
      switch (rng() % 3) {
        case 0: text.erase(pos, 1 + rng() % 3); break;
        case 1: text.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
        default: text[pos] = alphabet[rng() % alphabet.size()]; break;
      }
    }
    try {
      Model m = parseModel(text, "fuzz.cat", LoadOptions{{}, false});
      ++parsed;
      Interpreter<BitAlgebra> in(m);
      BitAlgebra a(4);
      a.setSet("W", ptxmm::BitSet::full(4));
      for (const char* r : {"po", "rf", "co", "fr", "loc"}) a.setRel(r, ptxmm::BitMatrix(4));
      (void)in.run(a);
    } catch (const ptxmm::DiagnosticError& e) {
      CHECK(std::string(e.what()).rfind("fuzz.cat:", 0) == 0);
    }
  }
  CHECK(parsed > 100);
  // pathological nesting is an error, not a stack overflow
  std::string deep(100000, '(');
  CHECK_THROWS_WITH(parseCatExpr(deep), Catch::Contains("nested too deeply"));
}
