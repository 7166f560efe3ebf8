// Witness pictures: dot files for every state with a witness, rendered to SVG by Graphviz when it is
// installed (file names that a shell would mangle included), and dot's own errors reported by name.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "LitmusTexts.hpp"
#include "cat/Model.hpp"
#include "check/Check.hpp"
#include "check/Dot.hpp"
#include "litmus/Parser.hpp"
#include "support/Process.hpp"

using namespace ptxmm;
namespace fs = std::filesystem;

namespace {

const char* const kMp = test_litmus::kRelaxedMP;

/// A fresh directory whose name holds a space and a quote, the file names the shell lines broke on.
fs::path scratchDir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("ptxmm dot's test " + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool haveDot() { return findProgram("dot").has_value(); }

}  // namespace

TEST_CASE("writeDotFiles writes a .dot per witness and an .svg when dot is installed", "[check][dot]") {
  auto test = litmus::parseTest(kMp, "MP.litmus");
  auto model = cat::parseModel("\"sc-test\"\nacyclic po | rf | co | fr as sc\n", "sc-test.cat");
  check::CheckOptions opts;
  opts.engine = check::Engine::Enum;
  auto v = check::checkTest(test, model, "sc-test", opts);
  REQUIRE(v.status == check::Status::Ok);
  size_t witnesses = 0;
  for (const auto& s : v.states) witnesses += s.witness ? 1 : 0;
  REQUIRE(witnesses > 0);

  auto dir = scratchDir("files");
  CHECK(check::writeDotFiles(v, dir, /*svg=*/false) == static_cast<int>(witnesses));
  CHECK(fs::exists(dir / "MP-0.dot"));
  CHECK_FALSE(fs::exists(dir / "MP-0.svg"));

  int n = check::writeDotFiles(v, dir, /*svg=*/true);
  if (haveDot()) {
    CHECK(n == static_cast<int>(2 * witnesses));
    CHECK(fs::exists(dir / "MP-0.svg"));
    std::ifstream svg(dir / "MP-0.svg");
    std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
    CHECK(text.find("<svg") != std::string::npos);
  } else {
    WARN("dot not installed: only .dot files (the quiet fallback)");
    CHECK(n == static_cast<int>(witnesses));
  }
  fs::remove_all(dir);
}

TEST_CASE("renderSvg reports dot's error with its stderr and leaves no SVG", "[check][dot]") {
  auto dir = scratchDir("render");
  auto good = dir / "it's good.dot";
  auto bad = dir / "bad one.dot";
  std::ofstream(good) << "digraph g { a -> b; }\n";
  std::ofstream(bad) << "digraph g { a -> ; }\n";
  std::string error;
  if (!haveDot()) {
    WARN("dot not installed: renderSvg is a quiet no-op");
    CHECK_FALSE(check::renderSvg(good, dir / "good.svg", error));
    CHECK(error.empty());
    fs::remove_all(dir);
    return;
  }
  CHECK(check::renderSvg(good, dir / "it's good.svg", error));
  CHECK(error.empty());
  CHECK(fs::exists(dir / "it's good.svg"));

  CHECK_FALSE(check::renderSvg(bad, dir / "bad one.svg", error));
  INFO(error);
  CHECK(error.rfind("dot exited with status ", 0) == 0);
  CHECK(error.find("syntax error") != std::string::npos);  // dot's stderr
  CHECK(error.find("(rendering " + bad.string() + ")") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "bad one.svg"));
  fs::remove_all(dir);
}
