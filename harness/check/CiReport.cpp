// JUnit XML and SARIF 2.1.0 output of suite runs.
#include "check/CiReport.hpp"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "support/Utf8.hpp"

namespace ptxmm::check {

namespace {

std::string xmlEscape(const std::string& text) {
  const std::string s = toValidUtf8(text);
  std::string r;
  r.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': r += "&amp;"; break;
      case '<': r += "&lt;"; break;
      case '>': r += "&gt;"; break;
      case '"': r += "&quot;"; break;
      case '\'': r += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters, even escaped.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r')
          r += '?';
        else
          r += c;
    }
  }
  return r;
}

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

// JUnit classname: the test's directory with dots ("litmus.async").
std::string className(const std::string& file) {
  std::string dir = file.substr(0, file.find_last_of('/') == std::string::npos ? 0 : file.find_last_of('/'));
  while (dir.rfind("./", 0) == 0) dir = dir.substr(2);
  while (!dir.empty() && dir.front() == '/') dir = dir.substr(1);
  for (char& c : dir)
    if (c == '/') c = '.';
  return dir.empty() ? "litmus" : dir;
}

struct Rule {
  const char* id;
  const char* name;
  const char* text;
};

// The finding kinds of SARIF output (their ids are the SARIF ruleIds).
const Rule kRules[] = {
    {"data-race", "DataRace", "Two conflicting accesses that the model does not order (flag data-race)"},
    {"undefined", "UndefinedBehaviour", "An execution with undefined behaviour under the model (flag undefined)"},
    {"deadlock", "Deadlock", "An execution in which a wait never completes (flag deadlock)"},
    {"verdict-mismatch", "VerdictMismatch",
     "The model's verdict differs from the test's expectation (e.g. forbidden but expected allowed)"},
    {"not-decided", "NotDecided", "The test could not be checked: error, timeout, memory limit or unknown"},
};

nlohmann::json location(const std::string& file, int line) {
  // SARIF wants URIs: a relative path is a relative reference (resolved against the checkout by code
  // scanning), an absolute one becomes a file: URI.
  std::string uri = !file.empty() && file.front() == '/' ? "file://" + file : file;
  nlohmann::json loc = {{"physicalLocation", {{"artifactLocation", {{"uri", uri}}}}}};
  if (line > 0) loc["physicalLocation"]["region"] = {{"startLine", line}};
  return loc;
}

}  // namespace

int conditionLineOf(const std::string& litmusFile) {
  std::ifstream in(litmusFile);
  std::string line;
  int n = 0, found = 0;
  while (std::getline(in, line)) {
    ++n;
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos) continue;
    std::string rest = line.substr(i);
    if (rest.rfind("exists", 0) == 0 || rest.rfind("~exists", 0) == 0 || rest.rfind("~ exists", 0) == 0 ||
        rest.rfind("forall", 0) == 0)
      found = n;
  }
  return found;
}

int messageLine(const std::string& message, const std::string& file) {
  if (file.empty() || message.rfind(file + ":", 0) != 0) return 0;
  size_t i = file.size() + 1;
  int line = 0;
  while (i < message.size() && std::isdigit(static_cast<unsigned char>(message[i])))
    line = line * 10 + (message[i++] - '0');
  return i < message.size() && (message[i] == ':' || message[i] == ' ') ? line : 0;
}

void writeJUnit(const std::vector<TestRecord>& records, const std::string& suiteName, double seconds,
                std::ostream& os) {
  int failures = 0, errors = 0;
  for (const auto& r : records) {
    if (r.status != Status::Ok)
      ++errors;
    else if (r.outcome == TestRecord::Fail)
      ++failures;
  }
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  os << fmt::format("<testsuites name=\"ptxmm\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3f}\">\n",
                    records.size(), failures, errors, seconds);
  os << fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" time=\"{:.3f}\">\n",
      xmlEscape(suiteName), records.size(), failures, errors, seconds);
  for (const auto& r : records) {
    std::string name = r.name.empty() ? r.file : r.name;
    os << fmt::format("    <testcase name=\"{}\" classname=\"{}\" file=\"{}\" time=\"{:.3f}\"", xmlEscape(name),
                      xmlEscape(className(r.file)), xmlEscape(r.file), r.seconds);
    bool body = r.status != Status::Ok || r.outcome == TestRecord::Fail || !r.log.empty();
    if (!body) {
      os << "/>\n";
      continue;
    }
    os << ">\n";
    if (r.status != Status::Ok)
      os << fmt::format("      <error type=\"{}\" message=\"{}\">{}</error>\n", statusName(r.status),
                        xmlEscape(firstLine(r.message)), xmlEscape(r.message));
    else if (r.outcome == TestRecord::Fail)
      os << fmt::format("      <failure type=\"verdict-mismatch\" message=\"{}\">{}</failure>\n",
                        xmlEscape(firstLine(r.message)), xmlEscape(r.message));
    if (!r.log.empty()) os << "      <system-out>" << xmlEscape(r.log) << "</system-out>\n";
    os << "    </testcase>\n";
  }
  os << "  </testsuite>\n</testsuites>\n";
}

void writeSarif(const std::vector<TestRecord>& records, const std::string& toolVersion, std::ostream& os) {
  using nlohmann::json;
  json rules = json::array();
  for (const auto& r : kRules)
    rules.push_back({{"id", r.id},
                     {"name", r.name},
                     {"shortDescription", {{"text", r.text}}},
                     {"defaultConfiguration", {{"level", "error"}}}});
  json results = json::array();
  for (const auto& r : records) {
    std::string test = r.name.empty() ? r.file : r.name;
    if (r.status != Status::Ok) {
      results.push_back({{"ruleId", "not-decided"},
                         {"level", "error"},
                         {"message", {{"text", fmt::format("{}: {} ({})", test, statusName(r.status), r.message)}}},
                         {"locations", json::array({location(r.file, r.line)})}});
      continue;
    }
    for (const char* flag : {"data-race", "undefined", "deadlock"}) {
      if (!r.flags.count(flag)) continue;
      auto result = [&](const std::string& text, json locations, json related) {
        json res = {{"ruleId", flag}, {"message", {{"text", text}}}, {"locations", std::move(locations)}};
        if (!related.empty()) res["relatedLocations"] = std::move(related);
        if (r.expectedFlags.count(flag)) {
          res["level"] = "note";
          res["suppressions"] = json::array(
              {{{"kind", "external"}, {"justification", r.expectReason.empty() ? "expected" : r.expectReason}}});
        } else {
          res["level"] = "error";
        }
        results.push_back(std::move(res));
      };
      bool located = false;
      for (const auto& f : r.findings) {
        if (f.flag != flag) continue;
        json related = json::array();
        int first = 0;
        for (const auto& g : f.groups)
          for (const auto& e : g) {
            if (e.line <= 0) continue;
            if (first == 0)
              first = e.line;
            else if (related.size() < 16)
              related.push_back(location(r.file, e.line));
          }
        std::string what = f.check == f.flag ? f.flag : f.flag + " (" + f.check + ")";
        result(fmt::format("{}: {}: {}", test, what, f.text()),
               json::array({location(r.file, first > 0 ? first : r.line)}), std::move(related));
        located = true;
      }
      if (!located)
        result(fmt::format("{}: the model raises flag {}", test, flag), json::array({location(r.file, r.line)}),
               json::array());
    }
    if (r.outcome == TestRecord::Fail)
      results.push_back({{"ruleId", "verdict-mismatch"},
                         {"level", "error"},
                         {"message", {{"text", fmt::format("{}: {}", test, r.message)}}},
                         {"locations", json::array({location(r.file, r.conditionLine)})}});
  }
  json run = {{"tool", {{"driver", {{"name", "ptxmm"}, {"version", toolVersion}, {"rules", rules}}}}},
              {"results", results}};
  json log = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}, {"runs", json::array({run})}};
  os << log.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace ptxmm::check
