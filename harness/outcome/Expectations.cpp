#include "outcome/Expectations.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ptxmm::outcome {
namespace {

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.' || c == '+';
}

}  // namespace

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
      e.observation = *obs;
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

std::string readExpectationText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DiagnosticError(SourceLoc{path, 0, 0}, "cannot open expectation file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<Expectation> parseExpectationFile(const std::string& path) {
  return parseExpectations(readExpectationText(path), path);
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

bool isTodoReason(std::string_view reason) { return reason.starts_with("TODO:"); }

namespace {

// "Sometimes +data-race": the verdict and flags of a line, as a .expect line writes them.
std::string verdictText(Observation verdict, const std::vector<std::string>& flags) {
  std::string r = toString(verdict);
  for (const auto& f : flags) r += " +" + f;
  return r;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

std::string expectationMismatch(const Expectation& e, Observation observation, const std::set<std::string>& flags) {
  auto join = [](const std::set<std::string>& s) {
    std::string r;
    for (const auto& f : s) r += (r.empty() ? "+" : " +") + f;
    return r.empty() ? "no flags" : r;
  };
  const std::set<std::string> expected(e.flags.begin(), e.flags.end());
  std::string r;
  if (observation != e.observation)
    r = "expected " + toString(e.observation) + " but the model gives " + toString(observation);
  if (flags != expected) {
    if (!r.empty()) r += "; ";
    r += "expected " + join(expected) + " but the model raises " + join(flags);
  }
  return r;
}

std::string formatExpectation(const Expectation& e) {
  return e.model + ": " + verdictText(e.observation, e.flags) + " | " + e.reason;
}

Blessed blessExpectations(const std::optional<std::string>& text, const std::string& file, const std::string& model,
                          Observation verdict, const std::vector<std::string>& flags) {
  Expectation fresh;
  fresh.model = model;
  fresh.observation = verdict;
  fresh.flags = flags;
  fresh.reason = std::string(kTodoReason);
  Blessed out;
  if (!text) {
    out.action = Blessed::Created;
    out.text = formatExpectation(fresh) + "\n";
    return out;
  }
  out.text = *text;
  std::vector<Expectation> all = parseExpectations(*text, file);
  const Expectation* old = findExpectation(all, model);
  if (!old) {
    // A new line at the end, in the file's own line ending.
    const std::string nl = text->find("\r\n") != std::string::npos ? "\r\n" : "\n";
    if (!out.text.empty() && out.text.back() != '\n') out.text += nl;
    out.text += formatExpectation(fresh) + nl;
    out.action = Blessed::Updated;
    out.was = "no line for " + model;
    return out;
  }
  if (old->observation == verdict && sorted(old->flags) == sorted(flags)) return out;
  out.action = Blessed::Updated;
  out.was = verdictText(old->observation, old->flags);
  // The old reason is kept so that nothing written by hand is lost (a bare marker adds nothing).
  fresh.reason += " (was: " + out.was + (old->reason == kTodoReason ? "" : ": " + old->reason) + ")";
  // Replace the line from its model name to its end (indentation and a CRLF ending stay).
  size_t begin = 0;
  for (int line = 1; line < old->src.line; ++line) begin = text->find('\n', begin) + 1;
  size_t end = text->find('\n', begin);
  if (end == std::string::npos) end = text->size();
  if (end > begin && (*text)[end - 1] == '\r') --end;
  begin += static_cast<size_t>(old->src.col - 1);
  out.text.replace(begin, end - begin, formatExpectation(fresh));
  return out;
}

void writeExpectationFile(const std::string& path, std::string_view text) {
  namespace fs = std::filesystem;
  auto fail = [&](const std::string& why) {
    throw DiagnosticError(SourceLoc{path, 0, 0}, "cannot write the expectation file: " + why);
  };
  std::error_code ec;
  fs::path target = path;
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    target = fs::weakly_canonical(target, ec);
    if (ec) fail(ec.message());
  }
  // A temporary beside the target, so that the rename stays within one file system and is atomic.
  static std::atomic<unsigned> serial{0};
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  fs::path tmp = dir / ("." + target.filename().string() + ".bless-" + std::to_string(::getpid()) + "-" +
                        std::to_string(serial++));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) fail(tmp.string() + ": " + std::strerror(errno));
  std::string why;
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0 && ::fchmod(fd, st.st_mode & 07777) != 0) why = std::strerror(errno);
  for (size_t done = 0; why.empty() && done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) why = std::strerror(errno);
    done += n > 0 ? static_cast<size_t>(n) : 0;
  }
  if (why.empty() && ::fsync(fd) != 0) why = std::strerror(errno);
  if (::close(fd) != 0 && why.empty()) why = std::strerror(errno);
  if (why.empty() && ::rename(tmp.c_str(), target.c_str()) != 0) why = std::strerror(errno);
  if (!why.empty()) {
    ::unlink(tmp.c_str());
    fail(why);
  }
}

}  // namespace ptxmm::outcome
