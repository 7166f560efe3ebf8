// herd7 compatibility of the cat front end, on hand-built BitAlgebra environments: the syntax herd's
// library uses (`r ^ -1`, `let a, b = ...`, `let rec ... when`, top-level `let ... in`, header forms),
// herd's standard names (cat/HerdLib.hpp) and primitives, the built-in filters.cat / cross.cat, and
// `with co from generate_cos(...)` choosing the engine's co instead of enumerating it again.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "cat/BitAlgebra.hpp"
#include "cat/HerdLib.hpp"
#include "cat/Interpreter.hpp"
#include "cat/Parser.hpp"

using namespace ptxmm;
using namespace ptxmm::cat;

namespace {

BitSet setOf(size_t n, std::initializer_list<size_t> xs) {
  BitSet s(n);
  for (size_t x : xs) s.set(x);
  return s;
}
BitMatrix relOf(size_t n, std::initializer_list<std::pair<size_t, size_t>> xs) {
  BitMatrix r(n);
  for (auto [a, b] : xs) r.set(a, b);
  return r;
}

// CoWW + a read: 0 = IW x, 1 = P0 W x=1, 2 = P0 W x=2, 3 = P1 R x, 4 = P0 fence. co puts `first` after IW.
BitAlgebra cowwAlgebra(size_t last) {
  const size_t n = 5;
  BitAlgebra a(n);
  a.setSet("W", setOf(n, {0, 1, 2}));
  a.setSet("R", setOf(n, {3}));
  a.setSet("M", setOf(n, {0, 1, 2, 3}));
  a.setSet("IW", setOf(n, {0}));
  a.setSet("F", setOf(n, {4}));
  a.setSet("RMW", BitSet(n));
  a.setSet("ACQ", setOf(n, {3}));
  a.setRel("po", relOf(n, {{1, 4}, {4, 2}, {1, 2}}));
  BitMatrix loc(n);
  for (size_t i : {0, 1, 2, 3})
    for (size_t j : {0, 1, 2, 3}) loc.set(i, j);
  a.setRel("loc", loc);
  BitMatrix intr = BitMatrix::identity(n);
  for (size_t i : {1, 2, 4})
    for (size_t j : {1, 2, 4}) intr.set(i, j);
  a.setRel("int", intr);
  a.setRel("ext", BitMatrix::full(n) - intr);
  a.setRel("rmw", BitMatrix(n));
  a.setRel("id", BitMatrix::identity(n));
  a.setRel("scta", BitMatrix::full(n));
  const size_t other = last == 2 ? 1 : 2;
  BitMatrix co = relOf(n, {{0, 1}, {0, 2}, {other, last}});
  a.setRel("co", co);
  BitMatrix rf = relOf(n, {{last, 3}});
  a.setRel("rf", rf);
  a.setRel("fr", rf.transpose().compose(co));
  BitSet fw(n);
  fw.set(last);
  a.setSet("FW", fw);
  return a;
}

ModelResult<BitAlgebra> run(const std::string& text, BitAlgebra a) {
  Model m = parseModel(text, "m.cat");
  Interpreter<BitAlgebra> in(m);
  return in.run(a);
}

bool allowed(const std::string& text, BitAlgebra a) {
  auto r = run(text, std::move(a));
  for (const auto& o : r.outcomes)
    if (isAllowed(o)) return true;
  return false;
}

}  // namespace

TEST_CASE("herd syntax: r ^ -1 with blanks, tuple lets without parentheses, headers", "[cat][herdlib]") {
  CHECK(exprToString(*parseCatExpr("po ^ -1")) == "(po)^-1");
  CHECK(exprToString(*parseCatExpr("po ^-1 ; rf")) == "((po)^-1 ; rf)");
  CHECK(parseCatFile("\"Generate co's\" withoutco\nlet x = po\n", "h.cat").title == "Generate co's");
  CHECK(parseCatFile("X86 TSO\nlet x = po\n", "h.cat").title == "TSO");
  // let a, b = (e1, e2)
  CHECK(allowed("let a, b = (po, rf)\nempty b \\ rf as same\nempty a \\ po as same2\n", cowwAlgebra(2)));
}

TEST_CASE("let rec ... when TEST is a check of the fixpoint", "[cat][herdlib]") {
  const char* m = "let rec t = po | (t ; t) when irreflexive t as t-irreflexive\n";
  auto r = run(m, cowwAlgebra(2));
  REQUIRE(r.outcomes.size() == 1);
  REQUIRE(r.outcomes[0].checks.size() == 1);
  CHECK(r.outcomes[0].checks[0].info->name == "t-irreflexive");
  CHECK(isAllowed(r.outcomes[0]));
  CHECK_FALSE(allowed("let rec t = (po | po^-1) | (t ; t) when irreflexive t\n", cowwAlgebra(2)));
}

TEST_CASE("a top-level let ... in is parsed and has no effect", "[cat][herdlib]") {
  CHECK(allowed("let x = po in x ; x\nacyclic po\n", cowwAlgebra(2)));
}

TEST_CASE("herd's standard names are defined over ptxmm's built-ins", "[cat][herdlib]") {
  // co0: IW before the other writes, the co-last write after the others
  CHECK(allowed("empty co0 \\ co as co0-in-co\n", cowwAlgebra(2)));
  CHECK(allowed("empty co0 \\ co as co0-in-co\n", cowwAlgebra(1)));
  CHECK(allowed("empty (co0 \\ ((IW * (W \\ IW)) | ((W \\ FW) * FW))) as exact\n", cowwAlgebra(1)));
  // ca, amo, lxsx, I, X, Exp
  CHECK(allowed("empty ca \\ (fr | co)\nempty amo \\ rmw\nempty lxsx\nempty I \\ IW\nempty X\nempty Exp \\ M\n",
                cowwAlgebra(2)));
  // functions: fromto, inter_transitive, as_transitive, tag2fenced
  CHECK(allowed("empty (fromto(F) \\ ((po & (_ * F)) ; po))\n~empty fromto(F) as has-pair\n", cowwAlgebra(2)));
  CHECK(
      allowed("empty (inter_transitive(po, loc) \\ (loc & po+))\nempty (as_transitive(po) \\ po+)\n", cowwAlgebra(2)));
  // bound-empty names: the empty set / relation of the right type
  CHECK(allowed("empty DMB.SY | MFENCE | LKW\nempty rf-reg | iico_ctrl\nempty different-values(po)\n", cowwAlgebra(2)));
  // a model's own definition and the engine's built-ins come first
  CHECK(allowed("let co0 = po\nempty co0 \\ po\n", cowwAlgebra(2)));
}

TEST_CASE("herd names come with notes: entries bound empty are listed", "[cat][herdlib]") {
  Model m = parseModel("let f = fencerel(MFENCE) | fencerel(DMB.SY)\nacyclic po | f | co0\n", "m.cat");
  CHECK(boundEmptyNames(m) == std::vector<std::string>{"DMB.SY", "MFENCE"});
  CHECK(boundEmptyNames(parseModel("acyclic po | co0\n", "m.cat")).empty());
  for (const auto& h : herdNames()) {
    INFO(h.name);
    CHECK_NOTHROW(parseCatExpr(h.definition));
  }
  // loadModel prints the note once per model file
  auto dir = std::filesystem::temp_directory_path() / "ptxmm-herdlib-note";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "arm.cat") << "\"arm-ish\"\nacyclic po | fencerel(DMB.ISH) as ob\n";
  std::vector<std::string> notes;
  setNoteSink([&](const std::string& n) { notes.push_back(n); });
  (void)loadModel(dir / "arm.cat");
  (void)loadModel(dir / "arm.cat");
  setNoteSink([](const std::string&) {});
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("DMB.ISH") != std::string::npos);
}

TEST_CASE("herd primitives: tag2events, tag2scope, classes, bisimulation, linearisations", "[cat][herdlib]") {
  CHECK(allowed("enum sem = 'acq || 'rel\nempty tag2events('acq) \\ ACQ\n~empty tag2events('acq)\n", cowwAlgebra(2)));
  CHECK(allowed("enum s = 'cta || 'gpu\nempty tag2scope('cta) \\ scta\n~empty tag2level('cta)\n", cowwAlgebra(2)));
  // classes of an equivalence: loc on memory events gives one class
  CHECK(allowed("let cs = classes(loc)\nforall c in cs do empty c \\ M end\n~empty cs\n", cowwAlgebra(2)));
  // the largest bisimulation of po within loc: events with po steps have no partner (their successors are not
  // in loc), events without steps relate to each other
  CHECK(allowed("empty ([domain(po)] ; bisimulation(po, loc))\n~empty bisimulation(po, loc) \\ id\n", cowwAlgebra(2)));
  // two total orders of {1, 2}; one extends po
  auto r = run("with o from linearisations(W \\ IW, 0)\nempty (po & (W * W)) \\ o as follows-po\n", cowwAlgebra(2));
  CHECK(r.outcomes.size() == 2);
  CHECK(std::count_if(r.outcomes.begin(), r.outcomes.end(), [](const auto& o) { return isAllowed(o); }) == 1);
}

TEST_CASE("built-in cross.cat: generate_cos takes the engine's co, cross combines", "[cat][herdlib]") {
  // the engine's co when it extends the partial order: one choice, or none
  const char* m = "include \"cross.cat\"\nwith co from generate_cos(co0 | (po & loc & (W * W)))\n";
  CHECK(run(m, cowwAlgebra(2)).outcomes.size() == 1);
  CHECK(run(m, cowwAlgebra(1)).outcomes.empty());
  // cross: one relation from each set
  auto r = run("include \"cross.cat\"\nwith x from cross({{po, rf}, {co}})\nacyclic x\n", cowwAlgebra(2));
  CHECK(r.outcomes.size() == 2);
  // generate_orders over an empty set is the empty order
  CHECK(
      run("include \"cross.cat\"\nwith lo from generate_orders({}, po)\nempty lo\n", cowwAlgebra(2)).outcomes.size() ==
      1);
}

TEST_CASE("built-in filters.cat and cos.cat resolve whatever lies next to the model", "[cat][herdlib]") {
  auto dir = std::filesystem::temp_directory_path() / "ptxmm-herdlib-include";
  std::filesystem::create_directories(dir);
  // files that would enumerate co or fail: ptxmm's own versions are used instead
  std::ofstream(dir / "cos.cat") << "with co from {}\n";
  std::ofstream(dir / "filters.cat") << "let WW(r) = fail r\n";
  std::ofstream(dir / "cross.cat") << "let generate_cos(r) = {}\n";
  std::ofstream(dir / "m.cat") << "M\ninclude \"cos.cat\"\ninclude \"filters.cat\"\ninclude \"cross.cat\"\n"
                                  "with co from generate_cos(co0)\nacyclic WW(po) | fre | coe as m\n";
  Model m = loadModel(dir / "m.cat");
  Interpreter<BitAlgebra> in(m);
  BitAlgebra a = cowwAlgebra(2);
  auto r = in.run(a);
  REQUIRE(r.outcomes.size() == 1);
  CHECK(isAllowed(r.outcomes[0]));
}
