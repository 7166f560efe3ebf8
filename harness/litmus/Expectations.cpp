#include "litmus/Expectations.hpp"

#include <fstream>
#include <sstream>

namespace ptxmm::litmus {
namespace {

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.' || c == '+';
}

}  // namespace

std::string_view toString(Expectation::Observation o) {
  switch (o) {
    case Expectation::Always: return "Always";
    case Expectation::Sometimes: return "Sometimes";
    case Expectation::Never: return "Never";
  }
  return "";
}

std::optional<Expectation::Observation> parseObservation(std::string_view s) {
  if (s == "Always") return Expectation::Always;
  if (s == "Sometimes") return Expectation::Sometimes;
  if (s == "Never") return Expectation::Never;
  return std::nullopt;
}

std::vector<Expectation> parseExpectations(std::string_view text, const std::string& file) {
  std::vector<Expectation> out;
  int lineNo = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    ++lineNo;
    auto at = [&](size_t col) { return SourceLoc{file, lineNo, static_cast<int>(col) + 1}; };
    auto fail = [&](size_t col, const std::string& msg) { throw DiagnosticError(at(col), msg); };
    size_t p = 0;
    while (p < line.size() && isBlank(line[p])) ++p;
    if (p < line.size() && line[p] != '#') {
      Expectation e;
      e.src = at(p);
      size_t ms = p;
      while (p < line.size() && isNameChar(line[p])) ++p;
      e.model = std::string(line.substr(ms, p - ms));
      if (e.model.empty()) fail(ms, "expected a model name (`<model>: <Always|Sometimes|Never> | <reason>`)");
      while (p < line.size() && isBlank(line[p])) ++p;
      if (p >= line.size() || line[p] != ':') fail(p, "expected ':' after the model name `" + e.model + "`");
      ++p;
      while (p < line.size() && isBlank(line[p])) ++p;
      size_t vs = p;
      while (p < line.size() && !isBlank(line[p]) && line[p] != '|') ++p;
      std::string verdict(line.substr(vs, p - vs));
      auto obs = parseObservation(verdict);
      if (!obs) {
        std::string msg = verdict.empty() ? "missing verdict" : "bad verdict `" + verdict + "`";
        std::string best = closestMatch(verdict, {"Always", "Sometimes", "Never"});
        if (!best.empty() && !verdict.empty()) msg += "; did you mean `" + best + "`?";
        fail(vs, msg + " (expected Always, Sometimes or Never)");
      }
      e.verdict = *obs;
      while (true) {
        while (p < line.size() && isBlank(line[p])) ++p;
        if (p >= line.size() || line[p] != '+') break;
        size_t fs = ++p;
        while (p < line.size() && isNameChar(line[p]) && line[p] != '+') ++p;
        if (p == fs) fail(fs - 1, "expected a flag name after '+'");
        std::string flag(line.substr(fs, p - fs));
        for (const auto& f : e.flags)
          if (f == flag) fail(fs, "duplicate flag `+" + flag + "`");
        e.flags.push_back(flag);
      }
      if (p >= line.size() || line[p] != '|') {
        if (p < line.size()) fail(p, "unexpected text; expected `+flag` or `| <reason>`");
        fail(p, "missing reason: every expectation needs `| <reason citing the PTX ISA section or the idiom shape>`");
      }
      ++p;
      while (p < line.size() && isBlank(line[p])) ++p;
      size_t re = line.size();
      while (re > p && isBlank(line[re - 1])) --re;
      e.reason = std::string(line.substr(p, re - p));
      if (e.reason.empty())
        fail(p, "empty reason after '|': cite the PTX ISA section or the idiom shape (models/README.md)");
      for (const auto& o : out)
        if (o.model == e.model)
          fail(ms,
               "duplicate expectation for model `" + e.model + "` (first at line " + std::to_string(o.src.line) + ")");
      out.push_back(std::move(e));
    }
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return out;
}

std::vector<Expectation> parseExpectationFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DiagnosticError(SourceLoc{path, 0, 0}, "cannot open expectation file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parseExpectations(ss.str(), path);
}

std::string expectationPathFor(const std::string& litmusPath) {
  const std::string ext = ".litmus";
  if (litmusPath.size() >= ext.size() && litmusPath.compare(litmusPath.size() - ext.size(), ext.size(), ext) == 0)
    return litmusPath.substr(0, litmusPath.size() - ext.size()) + ".expect";
  return litmusPath + ".expect";
}

const Expectation* findExpectation(const std::vector<Expectation>& all, std::string_view model) {
  for (const auto& e : all)
    if (e.model == model) return &e;
  return nullptr;
}

}  // namespace ptxmm::litmus
