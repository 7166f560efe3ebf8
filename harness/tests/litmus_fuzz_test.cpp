// Robustness: random mutations and truncations of every suite file and of the hand-written corpus
// must yield a Test or a located diagnostic — never a crash, an internal error or a hang.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"

namespace ptxmm::testing {
std::vector<std::pair<std::string, std::string>> handWrittenTests();
}

using namespace ptxmm;
using namespace ptxmm::litmus;

namespace {

const std::vector<std::string> kTokens = {";",
                                          "|",
                                          "[",
                                          "]",
                                          "{",
                                          "}",
                                          "@",
                                          ":",
                                          "::",
                                          ".",
                                          ",",
                                          "(*",
                                          "*)",
                                          "//",
                                          "\"",
                                          "~",
                                          "(",
                                          ")",
                                          "/\\",
                                          "\\/",
                                          "=>",
                                          "=",
                                          "!=",
                                          "0",
                                          "-1",
                                          "0x",
                                          "99999999999999999999",
                                          "P9",
                                          "P0",
                                          "@cta7",
                                          "\n",
                                          " ",
                                          "\t",
                                          "_",
                                          "%",
                                          "%ctaid.x",
                                          "%tid",
                                          ".shared::cta",
                                          ".acquire",
                                          ".gpu",
                                          ".b128",
                                          "bra",
                                          "L:",
                                          "exists",
                                          "~exists",
                                          "forall",
                                          "locations [",
                                          ".clc_pending",
                                          ".mbarrier",
                                          "aliases",
                                          "\xff",
                                          "\r\n",
                                          "{x, _}",
                                          "[x+",
                                          "atom.cas",
                                          "P0@"};

std::string mutate(const std::string& s, std::mt19937& rng) {
  std::string t = s;
  std::uniform_int_distribution<int> kind(0, 6);
  int nMut = std::uniform_int_distribution<int>(1, 3)(rng);
  for (int m = 0; m < nMut; ++m) {
    if (t.empty()) t = "PTX";
    std::uniform_int_distribution<size_t> pos(0, t.size());
    switch (kind(rng)) {
      case 0: t.resize(pos(rng)); break;  // truncate
      case 1: {                           // delete a range
        size_t a = pos(rng);
        size_t n = std::uniform_int_distribution<size_t>(1, 12)(rng);
        t.erase(a, n);
        break;
      }
      case 2:  // insert a token
        t.insert(pos(rng), kTokens[std::uniform_int_distribution<size_t>(0, kTokens.size() - 1)(rng)]);
        break;
      case 3: {  // replace one character by a random printable one
        size_t a = pos(rng);
        if (a < t.size()) t[a] = static_cast<char>(std::uniform_int_distribution<int>(32, 126)(rng));
        break;
      }
      case 4: {  // duplicate a chunk
        size_t a = pos(rng);
        size_t n = std::uniform_int_distribution<size_t>(1, 40)(rng);
        t.insert(pos(rng), t.substr(a, n));
        break;
      }
      case 5: {  // swap two lines
        std::vector<std::string> lines;
        std::istringstream in(t);
        for (std::string l; std::getline(in, l);) lines.push_back(l);
        if (lines.size() >= 2) {
          std::uniform_int_distribution<size_t> li(0, lines.size() - 1);
          std::swap(lines[li(rng)], lines[li(rng)]);
        }
        t.clear();
        for (const auto& l : lines) t += l + "\n";
        break;
      }
      default: {  // delete a dot-qualifier
        size_t a = t.find('.', pos(rng));
        if (a != std::string::npos) {
          size_t b = a + 1;
          while (b < t.size() && (std::isalnum(static_cast<unsigned char>(t[b])) || t[b] == '_' || t[b] == ':')) ++b;
          t.erase(a, b - a);
        }
      }
    }
  }
  return t;
}

std::vector<std::pair<std::string, std::string>> allInputs() {
  auto inputs = ptxmm::testing::handWrittenTests();
  namespace fs = std::filesystem;
  fs::path root = fs::path(PTXMM_SOURCE_DIR) / "litmus";
  if (fs::exists(root))
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (!e.is_regular_file() || e.path().extension() != ".litmus") continue;
      std::ifstream f(e.path(), std::ios::binary);
      std::ostringstream ss;
      ss << f.rdbuf();
      inputs.emplace_back(e.path().string(), ss.str());
    }
  return inputs;
}

}  // namespace

TEST_CASE("mutated and truncated inputs give a Test or a located diagnostic", "[parser][fuzz]") {
  std::mt19937 rng(20261122);
  auto inputs = allInputs();
  REQUIRE(inputs.size() >= 8);
  // PTXMM_FUZZ_ITERS=<n> runs n mutations per input (default: a quick run).
  int perInput = inputs.size() > 100 ? 12 : 200;
  if (const char* env = std::getenv("PTXMM_FUZZ_ITERS")) perInput = std::max(1, std::atoi(env));
  int accepted = 0, rejected = 0;
  for (const auto& [name, text] : inputs) {
    for (int i = 0; i < perInput; ++i) {
      std::string m = mutate(text, rng);
      auto start = std::chrono::steady_clock::now();
      ParseResult r = tryParseTest(m, "fuzz.litmus");
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      INFO("mutation of " << name << ":\n" << m);
      CHECK(secs < 1.0);  // no pathological (near-hang) behaviour
      if (r.ok()) {
        ++accepted;
        // Whatever was accepted prints to a canonical form that is a fixed point.
        std::string once = printCanonical(*r.test);
        ParseResult again = tryParseTest(once, "canon");
        REQUIRE(again.ok());
        CHECK(printCanonical(*again.test) == once);
      } else {
        ++rejected;
        REQUIRE(r.diagnostics.size() == 1);
        const Diagnostic& d = r.diagnostics[0];
        CHECK(d.message.rfind("internal error", 0) == std::string::npos);
        CHECK(d.loc.file == "fuzz.litmus");
        CHECK(d.loc.line >= 1);
        CHECK(d.loc.col >= 1);
      }
    }
  }
  // The mutator is strong enough to hit both outcomes.
  CHECK(accepted > 0);
  CHECK(rejected > 0);
}

TEST_CASE("every prefix of a hand-written test is handled", "[parser][fuzz]") {
  for (const auto& [name, text] : ptxmm::testing::handWrittenTests()) {
    for (size_t n = 0; n <= text.size(); n += 3) {
      ParseResult r = tryParseTest(text.substr(0, n), "prefix.litmus");
      INFO(name << " prefix " << n);
      if (!r.ok()) CHECK(r.diagnostics.at(0).message.rfind("internal error", 0) == std::string::npos);
    }
  }
}
