// Witness graphs in Graphviz dot.
#include "check/Dot.hpp"

#include <fmt/format.h>

#include <cctype>
#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "support/Process.hpp"

namespace ptxmm::check {

namespace {

std::string escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r;
}

const char* colorOf(const std::string& rel) {
  if (rel == "po") return "black";
  if (rel == "rf") return "red";
  if (rel == "co") return "blue";
  if (rel == "fr") return "orange";
  if (rel == "sc") return "purple";
  if (rel == "issue" || rel == "aso" || rel == "async-complete") return "darkgreen";
  return "gray40";
}

std::string fileSafe(const std::string& s) {
  std::string r;
  for (char c : s) r += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return r;
}

}  // namespace

void writeDot(const Verdict& v, const StateResult& state, std::ostream& os) {
  os << "digraph \"" << escape(v.testName) << "\" {\n";
  os << "  label=\"" << escape(v.testName + ": " + state.key) << "\";\n  labelloc=t;\n  rankdir=TB;\n";
  os << "  node [shape=box, fontname=\"monospace\"];\n";
  if (!state.witness) {
    os << "}\n";
    return;
  }
  // Events and pairs a raised flag names (the racing pair, the undefined access): drawn in crimson.
  std::set<std::string> findingRels;
  std::set<int> flagged;
  for (const auto& f : state.witness->findings) {
    if (!state.flags.count(f.flag)) continue;
    if (!f.pairs.empty()) findingRels.insert(f.check);
    for (auto [a, b] : f.pairs) flagged.insert({a, b});
    flagged.insert(f.events.begin(), f.events.end());
  }
  std::map<int, std::vector<const WitnessEvent*>> byThread;
  for (const auto& e : state.witness->events) byThread[e.isInit ? -1 : e.thread].push_back(&e);
  for (const auto& [t, evs] : byThread) {
    os << fmt::format("  subgraph cluster_{} {{\n    label=\"{}\";\n", t < 0 ? std::string("init") : std::to_string(t),
                      t < 0 ? std::string("init") : "P" + std::to_string(t));
    for (const auto* e : evs) {
      std::string style = e->proxyFence ? ", style=filled, fillcolor=gold" : "";
      if (flagged.count(e->id)) style += ", color=crimson, penwidth=2.5";
      os << fmt::format("    e{} [label=\"e{}: {}\"{}];\n", e->id, e->id, escape(e->label), style);
    }
    os << "  }\n";
  }
  for (const auto& [name, pairs] : state.witness->relations) {
    if (findingRels.count(name)) {  // one bold double-headed edge per unordered pair
      std::set<std::pair<int, int>> drawn;
      for (auto [a, b] : pairs)
        if (drawn.insert({std::min(a, b), std::max(a, b)}).second)
          os << fmt::format(
              "  e{} -> e{} [label=\"{}\", color=crimson, fontcolor=crimson, penwidth=2.5, style=dashed, "
              "dir=both, constraint=false];\n",
              a, b, escape(name));
      continue;
    }
    for (auto [a, b] : pairs) {
      std::string extra = name == "po" ? ", weight=10" : ", constraint=false";
      os << fmt::format("  e{} -> e{} [label=\"{}\", color={}, fontcolor={}{}];\n", a, b, escape(name), colorOf(name),
                        colorOf(name), extra);
    }
  }
  os << "}\n";
}

int writeDotFiles(const Verdict& v, const std::filesystem::path& dir, bool svg) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot create directory {}: {}", dir.string(), ec.message()));
  int n = 0;
  std::string firstError;
  int failed = 0;
  for (size_t k = 0; k < v.states.size(); ++k) {
    if (!v.states[k].witness) continue;
    auto path = dir / fmt::format("{}-{}.dot", fileSafe(v.testName), k);
    {
      std::ofstream out(path);
      if (!out) throw std::runtime_error("cannot write " + path.string());
      writeDot(v, v.states[k], out);
    }
    ++n;
    if (svg) {
      auto svgPath = path;
      svgPath.replace_extension(".svg");
      std::string error;
      if (renderSvg(path, svgPath, error))
        ++n;
      else if (!error.empty() && failed++ == 0)
        firstError = error;
    }
  }
  if (failed == 1) throw std::runtime_error(firstError);
  if (failed > 1) throw std::runtime_error(fmt::format("{} (and {} more pictures)", firstError, failed - 1));
  return n;
}

bool renderSvg(const std::filesystem::path& dotFile, const std::filesystem::path& svgFile, std::string& error) {
  error.clear();
  // Looked up once: a missing Graphviz is the common case and is not an error.
  static const std::optional<std::string> dot = findProgram("dot");
  if (!dot) return false;
  ProcessOptions o;
  o.timeout = std::chrono::seconds(30);
  auto r = runProcess({*dot, "-Tsvg", dotFile.string(), "-o", svgFile.string()}, o);
  if (r.ok()) return true;
  r.program = "dot";  // the message names the tool, not where it lives
  error = fmt::format("{} (rendering {})", r.error(), dotFile.string());
  std::error_code ec;
  std::filesystem::remove(svgFile, ec);
  return false;
}

}  // namespace ptxmm::check
