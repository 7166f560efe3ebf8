// Witness graphs in Graphviz dot.
#include "check/Dot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>
#include <vector>

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

std::string fileSafe(const std::string& s) {
  std::string r;
  for (char c : s) r += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return r;
}

}  // namespace

namespace {

/// One box of the picture: the events of one instruction instance of a thread (consecutive events with
/// the same source line), or all events of one asynchronous operation.
struct Box {
  int column = 0;      ///< litmus thread it is drawn in
  int line = 0;        ///< source line (async: of the issuing instruction)
  bool async = false;  ///< an asynchronous operation, drawn beside its issuing instruction
  std::string instr;   ///< the instruction
  std::vector<const WitnessEvent*> events;
  bool flagged = false;  ///< a finding names one of its events
  bool proxyFence = false;
};

/// Whether an event accesses a barrier word (mbarrier, complete-tx): its rf edges are synchronisation, its
/// co/fr edges are left out.
bool syncWord(const WitnessEvent& e) {
  return e.instr.rfind("mbarrier", 0) == 0 || e.instr.rfind("cp.async.mbarrier", 0) == 0 ||
         e.label.find("complete_tx") != std::string::npos || e.label.find("#tx") != std::string::npos;
}

/// "W.weak buf@cta0=2 (async)" → "W buf@cta0 = 2"; barrier words without their encoded value
/// ("R.acquire.cta full@cta0" → "R full@cta0"); fences as given.
std::string shortEvent(const WitnessEvent& e) {
  const std::string& l = e.label;
  if (e.kind != "R" && e.kind != "W") return l;
  size_t sp = l.find(' ');
  if (sp == std::string::npos) return l;
  std::string rest = l.substr(sp + 1);
  if (auto a = rest.find(" ("); a != std::string::npos) rest = rest.substr(0, a);
  std::string loc = rest.substr(0, rest.find_first_of("=#"));
  return e.kind + " " + loc + (syncWord(e) ? "" : " = " + std::to_string(e.value));
}

/// Pairs of `rel` with the transitive ones removed (a → c is dropped when a → b → c).
std::vector<std::pair<int, int>> reduce(const std::vector<std::pair<int, int>>& rel) {
  std::map<int, std::set<int>> succ;
  for (auto [a, b] : rel) succ[a].insert(b);
  std::vector<std::pair<int, int>> out;
  for (auto [a, c] : rel) {
    bool via = false;
    for (int b : succ[a])
      if (b != c && succ.count(b) && succ[b].count(c)) via = true;
    if (!via) out.emplace_back(a, c);
  }
  return out;
}

std::string htmlEscape(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '<')
      r += "&lt;";
    else if (c == '>')
      r += "&gt;";
    else if (c == '&')
      r += "&amp;";
    else if (c == '"')
      r += "&quot;";
    else
      r += c;
  }
  return r;
}

}  // namespace

void writeDot(const Verdict& v, const StateResult& state, std::ostream& os, const DotOptions& options) {
  std::string flags;
  for (const auto& f : state.flags) flags += " +" + f;
  os << "digraph \"" << escape(v.testName) << "\" {\n";
  os << "  graph [label=<<b>" << htmlEscape(v.testName) << "</b><br/>final state " << htmlEscape(state.key)
     << htmlEscape(flags)
     << ">, labelloc=t, fontname=\"Helvetica\", rankdir=TB, newrank=true, nodesep=0.5, ranksep=0.3];\n";
  os << "  node [shape=box, style=\"rounded\", fontname=\"Helvetica\", fontsize=10];\n";
  os << "  edge [fontname=\"Helvetica\", fontsize=9, arrowsize=0.7];\n";
  if (!state.witness) {
    os << "}\n";
    return;
  }
  const Witness& w = *state.witness;
  // The events a finding names (the racing pair, the undefined access) and its pairs.
  std::set<int> flagged;
  std::vector<std::pair<std::string, std::pair<int, int>>> findingPairs;
  for (const auto& f : w.findings) {
    if (!state.flags.count(f.flag)) continue;
    for (auto [a, b] : f.pairs) {
      flagged.insert({a, b});
      findingPairs.push_back({f.check, {a, b}});
    }
    flagged.insert(f.events.begin(), f.events.end());
  }
  // Boxes: consecutive events of one instruction of a thread; every event of one async operation.
  std::vector<Box> boxes;
  std::map<int, size_t> boxOf;     // event id → box
  std::map<int, size_t> asyncBox;  // pseudo-thread → box
  std::map<int, int> lastLine;     // column → line of its last box
  for (const auto& e : w.events) {
    if (e.isInit) continue;
    bool async = e.srcThread >= 0 && e.srcThread != e.thread;
    int column = e.srcThread >= 0 ? e.srcThread : e.thread;
    size_t b;
    if (async) {
      auto it = asyncBox.find(e.thread);
      if (it == asyncBox.end()) {
        boxes.push_back({column, e.line, true, e.instr, {}, false, false});
        it = asyncBox.emplace(e.thread, boxes.size() - 1).first;
      }
      b = it->second;
    } else if (!boxes.empty() && !boxes.back().async && boxes.back().column == column && boxes.back().line == e.line &&
               lastLine[column] == e.line && boxes.back().events.back()->thread == e.thread) {
      b = boxes.size() - 1;
    } else {
      boxes.push_back({column, e.line, false, e.instr, {}, false, false});
      b = boxes.size() - 1;
      lastLine[column] = e.line;
    }
    boxes[b].events.push_back(&e);
    boxes[b].flagged = boxes[b].flagged || flagged.count(e.id);
    boxes[b].proxyFence = boxes[b].proxyFence || e.proxyFence;
    boxOf[e.id] = b;
  }
  std::map<int, const WitnessEvent*> byId;
  for (const auto& e : w.events) byId[e.id] = &e;
  auto rel = [&](const char* name) -> const std::vector<std::pair<int, int>>& {
    static const std::vector<std::pair<int, int>> none;
    auto it = w.relations.find(name);
    return it == w.relations.end() ? none : it->second;
  };
  // Where each async operation is drawn: beside the box of the instruction that issued it.
  std::map<size_t, size_t> issuer;  // async box → issuing box
  for (auto [a, b] : rel("issue"))
    if (boxOf.count(a) && boxOf.count(b) && boxes[boxOf[b]].async) issuer.emplace(boxOf[b], boxOf[a]);

  // Columns: one cluster per litmus thread, boxes in program order (invisible edges keep the order).
  std::map<int, std::vector<size_t>> columns;
  for (size_t b = 0; b < boxes.size(); ++b)
    if (!boxes[b].async) columns[boxes[b].column].push_back(b);
  std::map<int, std::vector<const DotMark*>> marks;
  for (const auto& m : options.marks) marks[m.thread].push_back(&m);
  for (const auto& [col, bs] : columns) {
    os << fmt::format("  subgraph cluster_P{} {{\n    label=<<b>P{}</b>>; style=\"rounded\"; color=gray70;\n", col,
                      col);
    std::vector<std::string> order;
    size_t markAt = 0;
    auto colMarks = marks[col];
    std::sort(colMarks.begin(), colMarks.end(), [](auto* a, auto* b) { return a->line < b->line; });
    auto emitMark = [&](const DotMark* m, size_t k) {
      std::string id = fmt::format("m{}_{}", col, k);
      os << fmt::format("    {} [label=<{}>, shape=note, style=dashed, color=gray40, fontcolor=gray25];\n", id,
                        htmlEscape(m->text));
      order.push_back(id);
    };
    for (size_t b : bs) {
      while (markAt < colMarks.size() && colMarks[markAt]->line <= boxes[b].line)
        emitMark(colMarks[markAt], markAt), ++markAt;
      const Box& bx = boxes[b];
      std::string label = fmt::format("<font color=\"gray35\">l.{}</font> {}", bx.line, htmlEscape(bx.instr));
      for (const auto* e : bx.events) label += "<br align=\"left\"/>&nbsp;&nbsp;" + htmlEscape(shortEvent(*e));
      label += "<br align=\"left\"/>";
      std::string style = bx.proxyFence ? ", style=\"rounded,filled\", fillcolor=gold" : "";
      if (bx.flagged) style += ", color=crimson, penwidth=2.5";
      os << fmt::format("    b{} [label=<{}>{}];\n", b, label, style);
      order.push_back("b" + std::to_string(b));
    }
    while (markAt < colMarks.size()) emitMark(colMarks[markAt], markAt), ++markAt;
    // The async operations this thread issued, beside their issuing instruction.
    for (const auto& [ab, ib] : issuer) {
      if (boxes[ib].column != col) continue;
      const Box& bx = boxes[ab];
      std::string label = "<i>async</i> (issued l." + std::to_string(bx.line) + ")";
      for (const auto* e : bx.events) label += "<br align=\"left\"/>&nbsp;&nbsp;" + htmlEscape(shortEvent(*e));
      label += "<br align=\"left\"/>";
      std::string style = bx.flagged ? ", color=crimson, penwidth=2.5" : ", color=darkgreen";
      os << fmt::format("    b{} [label=<{}>, style=\"rounded,dashed\"{}];\n", ab, label, style);
      os << fmt::format("    {{ rank=same; b{}; b{}; }}\n", ib, ab);
      os << fmt::format("    b{} -> b{} [style=dashed, color=darkgreen, arrowhead=open, constraint=false];\n", ib, ab);
    }
    for (size_t k = 1; k < order.size(); ++k)
      os << fmt::format("    {} -> {} [style=invis, weight=10];\n", order[k - 1], order[k]);
    os << "  }\n";
  }
  // Async operations whose issuer is not known: their own column.
  for (size_t b = 0; b < boxes.size(); ++b)
    if (boxes[b].async && !issuer.count(b)) {
      std::string label = "<i>async</i> (l." + std::to_string(boxes[b].line) + ")";
      for (const auto* e : boxes[b].events) label += "<br align=\"left\"/>&nbsp;&nbsp;" + htmlEscape(shortEvent(*e));
      os << fmt::format("  b{} [label=<{}<br align=\"left\"/>>, style=\"rounded,dashed\"];\n", b, label);
    }

  // Edges between boxes: rf (green on barrier words: synchronisation), co and fr reduced, on data only.
  std::set<std::tuple<size_t, size_t, std::string>> drawn;
  auto edge = [&](int a, int b, const std::string& name, const std::string& attrs) {
    if (!boxOf.count(a) || !boxOf.count(b)) return;
    size_t x = boxOf[a], y = boxOf[b];
    if (x == y || !drawn.insert({x, y, name}).second) return;
    os << fmt::format("  b{} -> b{} [{}];\n", x, y, attrs);
  };
  for (auto [a, b] : rel("rf")) {
    if (!byId.count(a) || byId[a]->isInit) continue;
    if (syncWord(*byId[b]))
      edge(a, b, "sync", "label=\"sync\", color=forestgreen, fontcolor=forestgreen, penwidth=1.5, constraint=false");
    else
      edge(a, b, "rf", "label=\"rf\", color=red, fontcolor=red, constraint=false");
  }
  auto dataOnly = [&](const std::vector<std::pair<int, int>>& r) {
    std::vector<std::pair<int, int>> out;
    for (auto p : r)
      if (byId.count(p.first) && byId.count(p.second) && !syncWord(*byId[p.first]) && !syncWord(*byId[p.second]))
        out.push_back(p);
    return out;
  };
  for (auto [a, b] : reduce(dataOnly(rel("co"))))
    edge(a, b, "co", "label=\"co\", color=blue, fontcolor=blue, constraint=false");
  // fr: a read to the write right after the one it read from (the other fr pairs follow through co).
  std::vector<std::pair<int, int>> fr = dataOnly(rel("fr")), coData = dataOnly(rel("co"));
  std::set<std::pair<int, int>> coSet(coData.begin(), coData.end());
  for (auto [r, x] : fr) {
    bool later = false;
    for (auto [r2, y] : fr)
      if (r2 == r && y != x && coSet.count({y, x})) later = true;
    if (!later) edge(r, x, "fr", "label=\"fr\", color=darkorange, fontcolor=darkorange, constraint=false");
  }
  for (const auto& [check, pair] : findingPairs)
    edge(std::min(pair.first, pair.second), std::max(pair.first, pair.second), "race:" + check,
         "label=\"" + escape(check) +
             "\", color=crimson, fontcolor=crimson, penwidth=2.5, style=dashed, dir=both, constraint=false");
  // Legend.
  os << "  legend [shape=plaintext, fontsize=9, label=<<table border=\"0\" cellborder=\"0\" cellspacing=\"1\">"
        "<tr><td align=\"left\"><font color=\"red\">rf</font>: reads from</td>"
        "<td align=\"left\"><font color=\"blue\">co</font>: coherence order</td>"
        "<td align=\"left\"><font color=\"darkorange\">fr</font>: read before that write</td></tr>"
        "<tr><td align=\"left\"><font color=\"forestgreen\">sync</font>: a barrier word read from</td>"
        "<td align=\"left\"><font color=\"crimson\">crimson</font>: what a flag names</td>"
        "<td align=\"left\">gold: proxy fence; dashed: async operation</td></tr></table>>];\n";
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
