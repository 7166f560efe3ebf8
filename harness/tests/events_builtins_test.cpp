// The registry of built-in names (events/Builtins.def) against what the lowering and the skeletons
// produce for the whole litmus suite, and against the documentation.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "events/Builtins.hpp"
#include "events/Lower.hpp"
#include "events/Skeleton.hpp"
#include "litmus/Parser.hpp"

using namespace ptxmm;
using events::BuiltinKind;
namespace fs = std::filesystem;

namespace {

std::set<std::string> namesOf(std::initializer_list<BuiltinKind> kinds) {
  std::set<std::string> out;
  for (BuiltinKind k : kinds)
    for (auto& n : events::builtinNames(k)) out.insert(std::move(n));
  return out;
}

template <class Map>
std::set<std::string> keysOf(const Map& m) {
  std::set<std::string> out;
  for (const auto& [k, v] : m) out.insert(k);
  return out;
}

/// The text of section `title` of `doc`: from its `## title` heading to the next heading, or from its
/// `* **title**` bullet to the next top-level bullet or heading; empty if there is none.
std::string sectionText(const std::string& doc, const std::string& title) {
  size_t at = doc.find("\n## " + title + "\n");
  std::string end = "\n## ";
  if (at == std::string::npos) {
    at = doc.find("\n* **" + title + "**");
    end = "\n* ";
  }
  if (at == std::string::npos) return {};
  size_t stop = doc.find(end, at + 1);
  size_t heading = doc.find("\n#", at + 1);
  return doc.substr(at, std::min(stop, heading) - at);
}

/// Whether `name` occurs in `text` as a whole word (not part of a longer name: letters, digits, '_', '-').
bool hasWord(const std::string& text, const std::string& name) {
  auto inName = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-'; };
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const bool before = at > 0 && inName(text[at - 1]);
    const bool after = at + name.size() < text.size() && inName(text[at + name.size()]);
    if (!before && !after) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("the registry names each built-in once, by its enumerator", "[events][builtins]") {
  std::set<std::string> seen;
  for (const auto& b : events::allBuiltins()) {
    INFO(b.name);
    CHECK(seen.insert(std::string(b.name)).second);
    CHECK(events::findBuiltin(b.name) == &b);
    CHECK(&events::builtinInfo(b.id) == &b);
    CHECK_FALSE(b.doc.empty());
  }
  CHECK(events::findBuiltin("no-such-name") == nullptr);
  CHECK(events::builtinName(events::Builtin::bar_sync) == "bar-sync");
  CHECK(events::builtinName(events::Builtin::int_) == "int");
}

TEST_CASE("every tag and relation the lowering makes for the suite is in the registry", "[events][builtins][suite]") {
  const auto tags = namesOf({BuiltinKind::Tag});
  const auto dynamicTags = namesOf({BuiltinKind::DynamicTag});
  const auto programRelations = namesOf({BuiltinKind::ProgramRelation});
  const auto skeletonRelations = namesOf({BuiltinKind::ProgramRelation, BuiltinKind::DerivedRelation});
  fs::path root = fs::path(PTXMM_SOURCE_DIR) / "litmus";
  REQUIRE(fs::exists(root));
  size_t lowered = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".litmus") continue;
    auto parsed = litmus::tryParseFile(entry.path().string());
    if (!parsed.ok()) continue;
    INFO(entry.path().string());
    events::EventProgram prog;
    try {
      prog = events::lower(*parsed.test);
    } catch (const DiagnosticError&) {
      continue;  // events_suite_test reports lowering errors
    }
    ++lowered;
    for (const auto& e : prog.events) {
      for (const auto& t : e.tags) CHECK(tags.count(t) == 1);
      for (const auto& d : e.dynamicTags) CHECK(dynamicTags.count(d.name) == 1);
    }
    CHECK(keysOf(prog.relations) == programRelations);
    events::forEachPathChoice(prog, [&](const std::vector<int>& c) {
      events::Skeleton sk = events::buildSkeleton(prog, c);
      CHECK(keysOf(sk.sets) == tags);
      CHECK(keysOf(sk.relations) == skeletonRelations);
      CHECK(keysOf(sk.dynamicSets) == dynamicTags);
      return false;  // one path choice per test
    });
  }
  CHECK(lowered > 100);
}

TEST_CASE("every built-in is documented in the section the registry names", "[events][builtins][docs]") {
  for (const auto& b : events::allBuiltins()) {
    INFO(b.name << " in " << b.section);
    const std::string section(b.section);
    const size_t hash = section.find('#');
    REQUIRE(hash != std::string::npos);
    std::ifstream in(fs::path(PTXMM_SOURCE_DIR) / "docs" / section.substr(0, hash));
    REQUIRE(in);
    std::stringstream doc;
    doc << in.rdbuf();
    const std::string text = sectionText(doc.str(), section.substr(hash + 1));
    REQUIRE_FALSE(text.empty());
    CHECK(hasWord(text, std::string(b.name)));
  }
}

TEST_CASE("the built-ins models/README.md lists as used are in the registry", "[events][builtins][docs]") {
  std::ifstream in(fs::path(PTXMM_SOURCE_DIR) / "models" / "README.md");
  REQUIRE(in);
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string text = sectionText(doc.str(), "Built-ins used");
  REQUIRE_FALSE(text.empty());
  size_t names = 0;
  for (size_t open = text.find('`'); open != std::string::npos; open = text.find('`', open + 1)) {
    const size_t close = text.find('`', open + 1);
    REQUIRE(close != std::string::npos);
    std::istringstream words(text.substr(open + 1, close - open - 1));
    for (std::string w; words >> w;) {
      if (w.back() == ':') w.pop_back();
      if (w.find('.') != std::string::npos) continue;  // a file name (`sc.cat`)
      INFO(w);
      CHECK(events::findBuiltin(w) != nullptr);
      ++names;
    }
    open = close;
  }
  CHECK(names > 50);
}
