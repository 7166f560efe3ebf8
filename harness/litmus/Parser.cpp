#include "litmus/Parser.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "litmus/Validate.hpp"
#include "ptx/Ops.hpp"
#include "support/Budget.hpp"

namespace ptxmm::litmus {
namespace {

using ptx::DataType;
using ptx::OpId;
using ptx::OpInfo;
using ptx::Scope;
using ptx::Sem;
using ptx::Space;

bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentStart(char c) { return isAlpha(c) || c == '_' || c == '$'; }
bool isIdentChar(char c) { return isAlpha(c) || isDigit(c) || c == '_' || c == '$'; }
bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
bool isSpace(char c) { return isBlank(c) || c == '\n'; }

// Special registers (without the leading '%'); `vec` ones take a .x/.y/.z suffix.
constexpr std::array<std::string_view, 8> kVecSpecials = {"tid",           "ntid",           "ctaid",     "nctaid",
                                                          "cluster_ctaid", "cluster_nctaid", "clusterid", "nclusterid"};
constexpr std::array<std::string_view, 6> kScalarSpecials = {
    "cluster_ctarank", "cluster_nctarank", "laneid", "warpid", "smid", "nwarpid"};

std::string quoteQual(std::string_view q) { return "`." + std::string(q) + "`"; }

/// The source text with comments blanked out (newlines kept, so offsets map to the original
/// line:col), and offset → SourceLoc.
class Source {
 public:
  Source(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {
    lineStarts_.push_back(0);
    for (size_t i = 0; i < text_.size(); ++i)
      if (text_[i] == '\n') lineStarts_.push_back(i + 1);
    stripComments();
  }
  [[nodiscard]] const std::string& text() const { return text_; }
  [[nodiscard]] SourceLoc loc(size_t off) const {
    off = std::min(off, text_.size());
    auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), off);
    size_t line = static_cast<size_t>(it - lineStarts_.begin());
    size_t start = lineStarts_[line - 1];
    return SourceLoc{file_, static_cast<int>(line), static_cast<int>(off - start + 1)};
  }
  [[noreturn]] void fail(size_t off, const std::string& msg) const { throw DiagnosticError(loc(off), msg); }

 private:
  void stripComments() {
    size_t i = 0;
    while (i < text_.size()) {
      char c = text_[i];
      if (c == '"') {
        size_t j = text_.find('"', i + 1);
        if (j == std::string::npos) fail(i, "unterminated string (missing closing '\"')");
        i = j + 1;
      } else if (c == '/' && i + 1 < text_.size() && text_[i + 1] == '/') {
        while (i < text_.size() && text_[i] != '\n') text_[i++] = ' ';
      } else if (c == '(' && i + 1 < text_.size() && text_[i + 1] == '*') {
        size_t j = text_.find("*)", i + 2);
        if (j == std::string::npos) fail(i, "unterminated comment '(*' (missing '*)')");
        for (size_t k = i; k < j + 2; ++k)
          if (text_[k] != '\n') text_[k] = ' ';
        i = j + 2;
      } else {
        ++i;
      }
    }
  }
  std::string text_;
  std::string file_;
  std::vector<size_t> lineStarts_;
};

/// A half-open range [b, e) of the source text.
struct Range {
  size_t b = 0, e = 0;
};

/// Where each decoded qualifier was written (for errors pointing at the offending token).
/// Offsets of the qualifier groups of the instruction being read (Validate.hpp's QualLocs, as offsets).
struct QualOffsets {
  std::map<std::string, size_t> byGroup;  ///< group name → offset of its qualifier
  size_t mnemonic = 0;
};

/// Operand as first read, before the signature decides what an identifier is.
struct RawOperand {
  Operand op;
  bool ident = false;  ///< a bare identifier (register, location or label)
  size_t off = 0;
  char sep = ' ';  ///< the separator written before it: ' ' (first), ',' or '|' (`elect.sync d|p, m`)
};

class Parser {
 public:
  Parser(const Source& src, std::string file) : src_(src), t_(src.text()), file_(std::move(file)) {}

  Test parseTest() {
    test_.file = file_;
    size_t p = skipWs(0);
    if (p >= t_.size()) fail(p, "empty litmus file: expected `PTX <name>` on the first line");
    // Architecture and name.
    size_t a = p;
    while (p < t_.size() && !isSpace(t_[p])) ++p;
    test_.arch = t_.substr(a, p - a);
    p = skipBlank(p);
    size_t n = p;
    while (p < t_.size() && !isSpace(t_[p])) ++p;
    if (p == n) fail(n, "expected a test name after `" + test_.arch + "`");
    test_.name = t_.substr(n, p - n);
    for (size_t i = n; i < p; ++i)
      if (std::string_view("{};|\"[]").find(t_[i]) != std::string_view::npos)
        fail(i, std::string("invalid character '") + t_[i] + "' in test name");
    p = skipBlank(p);
    if (p < t_.size() && t_[p] != '\n' && t_[p] != '"') fail(p, "unexpected text after the test name");
    // Doc strings.
    p = skipWs(p);
    while (p < t_.size() && t_[p] == '"') {
      size_t q = t_.find('"', p + 1);  // comment stripping guarantees a closing quote
      test_.docs.push_back(t_.substr(p + 1, q - p - 1));
      p = skipWs(q + 1);
    }
    if (p >= t_.size() || t_[p] != '{') fail(p, "expected '{' to start the initial state");
    size_t close = t_.find('}', p + 1);
    if (close == std::string::npos) fail(p, "unterminated initial state: missing '}'");
    parseInit(Range{p + 1, close});
    p = skipWs(close + 1);
    // Threads up to the condition.
    size_t condStart = findConditionStart(p);
    if (p >= condStart) fail(p, "expected thread declarations (`P0@cta 0,gpu 0 | ...;` or `P0@cta 0,gpu 0:`)");
    size_t le = lineEnd(p);
    size_t last = le;
    while (last > p && isBlank(t_[last - 1])) --last;
    test_.blockLayout = last > p && t_[last - 1] == ':';
    if (test_.blockLayout)
      parseBlocks(Range{p, condStart});
    else
      parseColumns(Range{p, condStart});
    checkThreads();
    checkDeferred();
    parseTail(condStart);
    return std::move(test_);
  }

  Instr parseSingleInstr(const std::vector<std::string>& locs) {
    for (const auto& l : locs) {
      LocationDecl d;
      d.name = l;
      test_.locations.push_back(d);
    }
    size_t e = t_.size();
    while (e > 0 && isSpace(t_[e - 1])) --e;
    if (e > 0 && t_[e - 1] == ';') --e;
    size_t b = skipWs(0);
    if (b >= e) fail(b, "expected an instruction");
    Instr in = parseInstr(Range{b, e});
    if (!pre_.empty())
      fail(b, "this Dat3M form stands for two instructions (a fence and the access); parse it in a test");
    return in;
  }

 private:
  // ---- low-level helpers ----
  [[noreturn]] void fail(size_t off, const std::string& msg) const { src_.fail(off, msg); }
  size_t skipWs(size_t p) const {
    while (p < t_.size() && isSpace(t_[p])) ++p;
    return p;
  }
  size_t skipBlank(size_t p) const {
    while (p < t_.size() && isBlank(t_[p])) ++p;
    return p;
  }
  size_t skipWsIn(size_t p, size_t e) const {
    while (p < e && isSpace(t_[p])) ++p;
    return p;
  }
  size_t lineEnd(size_t p) const {
    size_t q = t_.find('\n', p);
    return q == std::string::npos ? t_.size() : q;
  }
  Range trim(Range r) const {
    while (r.b < r.e && isSpace(t_[r.b])) ++r.b;
    while (r.e > r.b && isSpace(t_[r.e - 1])) --r.e;
    return r;
  }
  std::string text(Range r) const { return t_.substr(r.b, r.e - r.b); }
  std::vector<Range> splitOn(Range r, char sep) const {
    std::vector<Range> out;
    size_t s = r.b;
    for (size_t i = r.b; i < r.e; ++i)
      if (t_[i] == sep) {
        out.push_back({s, i});
        s = i + 1;
      }
    out.push_back({s, r.e});
    return out;
  }
  // Reads an identifier at p (must start with an identifier character); returns its end.
  size_t identEnd(size_t p, size_t e) const {
    while (p < e && isIdentChar(t_[p])) ++p;
    return p;
  }
  // Parses a (possibly negative, decimal or 0x hex) integer at p; returns the end offset.
  size_t parseInt(size_t p, size_t e, int64_t& out) const {
    size_t s = p;
    bool neg = false;
    if (p < e && (t_[p] == '-' || t_[p] == '+')) {
      neg = t_[p] == '-';
      ++p;
    }
    if (p >= e || !isDigit(t_[p])) fail(s, "expected an integer");
    uint64_t v = 0;
    const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + (neg ? 1 : 0);
    auto acc = [&](uint64_t base, uint64_t d) {
      if (v > (limit - d) / base) fail(s, "integer literal out of range");
      v = v * base + d;
    };
    if (t_[p] == '0' && p + 1 < e && (t_[p + 1] == 'x' || t_[p + 1] == 'X')) {
      p += 2;
      size_t ds = p;
      while (p < e && std::isxdigit(static_cast<unsigned char>(t_[p]))) {
        char c = static_cast<char>(std::tolower(static_cast<unsigned char>(t_[p])));
        acc(16, isDigit(c) ? static_cast<uint64_t>(c - '0') : static_cast<uint64_t>(c - 'a' + 10));
        ++p;
      }
      if (p == ds) fail(s, "expected hex digits after `0x`");
    } else {
      while (p < e && isDigit(t_[p])) acc(10, static_cast<uint64_t>(t_[p++] - '0'));
    }
    if (p < e && isIdentChar(t_[p])) fail(s, "malformed integer literal");
    out = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
    return p;
  }
  bool startsWithWord(size_t p, std::string_view w) const {
    if (t_.compare(p, w.size(), w) != 0) return false;
    size_t q = p + w.size();
    return q >= t_.size() || !isIdentChar(t_[q]);
  }

  // ---- locations ----
  const LocationDecl* findLoc(const std::string& name) const {
    for (const auto& l : test_.locations)
      if (l.name == name) return &l;
    return nullptr;
  }
  bool isLocation(const std::string& name) const { return findLoc(name) != nullptr; }

  // Parses `@ctaN` at p (p points at '@'); returns the end.
  size_t parseCtaSuffix(size_t p, size_t e, int& cta) const {
    size_t s = p;
    ++p;
    if (t_.compare(p, 3, "cta") != 0 || p + 3 >= e || !isDigit(t_[p + 3]))
      fail(s, "expected `@cta<N>` after a location name");
    int64_t v = 0;
    p = parseInt(p + 3, e, v);
    if (v > 1000000) fail(s + 4, "CTA id out of range");
    cta = static_cast<int>(v);
    return p;
  }

  // ---- init block ----
  void parseInit(Range r) {
    for (Range item : splitOn(r, ';'))
      for (Range line : splitOn(item, '\n')) {
        line = trim(line);
        if (line.b < line.e) parseInitItem(line);
      }
    // Alias targets: resolved to the physical location (an alias of an alias names the same one).
    for (auto& l : test_.locations) {
      if (l.aliasOf.empty()) continue;
      l.aliasDirect = l.aliasOf;
      std::string root = l.aliasOf;
      for (size_t hops = 0;; ++hops) {
        const LocationDecl* target = findLoc(root);
        if (target == nullptr)
          throw DiagnosticError(l.src, "`" + l.name + "` aliases undeclared location `" + root + "`");
        if (target->aliasOf.empty()) break;
        if (hops > test_.locations.size()) throw DiagnosticError(l.src, "cyclic aliases involving `" + l.name + "`");
        root = target->aliasOf;
      }
      l.aliasOf = root;
    }
  }

  void addLocation(LocationDecl d, size_t off) {
    if (isLocation(d.name)) fail(off, "duplicate declaration of location `" + d.name + "`");
    if (d.name == "_") fail(off, "`_` cannot name a location");
    test_.locations.push_back(std::move(d));
  }

  void parseInitItem(Range r) {
    size_t p = r.b, e = r.e;
    if (t_[p] == '.') {
      size_t q = identEnd(p + 1, e);
      std::string dir = t_.substr(p, q - p);
      p = skipWsIn(q, e);
      if (dir == ".clc_pending") {
        clcOff_ = r.b;
        while (p < e) {
          int64_t v = 0;
          size_t s = p;
          p = skipWsIn(parseInt(p, e, v), e);
          if (v < 0) fail(s, "`.clc_pending` CTA ids must be non-negative");
          test_.clcPending.push_back(v);
          if (p < e) {
            if (t_[p] != ',') fail(p, "expected ',' between `.clc_pending` CTA ids");
            p = skipWsIn(p + 1, e);
            if (p >= e) fail(p, "expected a CTA id after ','");
          }
        }
        if (test_.clcPending.empty()) fail(r.b, "`.clc_pending` needs at least one CTA id");
        return;
      }
      LocationDecl d;
      d.src = src_.loc(r.b);
      if (dir == ".global") {
        d.space = Space::Global;
      } else if (dir == ".shared" || dir == ".mbarrier" || dir == ".tmem") {
        d.space = Space::SharedCta;
        d.isMbarrier = dir == ".mbarrier";
        d.isTmem = dir == ".tmem";
      } else {
        fail(r.b, "unknown declaration `" + dir + "`; expected .global, .shared, .mbarrier, .tmem or .clc_pending");
      }
      if (p >= e || !isIdentStart(t_[p])) fail(p, "expected a location name after `" + dir + "`");
      size_t ne = identEnd(p, e);
      d.name = t_.substr(p, ne - p);
      size_t nameOff = p;
      p = ne;
      if (p < e && t_[p] == '@') {
        if (d.space == Space::Global) fail(p, "a global location has no owning CTA (`@ctaN` is for .shared)");
        p = parseCtaSuffix(p, e, d.ownerCta);
        deferredCtas_.push_back({d.ownerCta, nameOff});
      }
      p = skipWsIn(p, e);
      bool hasValue = false;
      if (p < e && t_[p] == '=') {
        p = skipWsIn(p + 1, e);
        int64_t v = 0;
        p = skipWsIn(parseInt(p, e, v), e);
        hasValue = true;
        if (d.isMbarrier) {
          if (v <= 0 || v >= (1 << 20)) fail(nameOff, "mbarrier expected-arrival count must be in 1..2^20-1");
          d.mbarCount = static_cast<int>(v);
        } else {
          d.init = v;
        }
      }
      if (p < e) fail(p, "unexpected text in declaration of `" + d.name + "`");
      if (d.isMbarrier && !hasValue) fail(nameOff, "`.mbarrier " + d.name + "` needs an arrival count: `= N`");
      addLocation(std::move(d), nameOff);
      return;
    }
    // Register init: `P1:r0 = 0`, `1:r0 = x`.
    {
      size_t q = p;
      if (q < e && t_[q] == 'P') ++q;
      size_t ds = q;
      while (q < e && isDigit(t_[q])) ++q;
      if (q > ds && q < e && t_[q] == ':') {
        RegInit ri;
        ri.src = src_.loc(r.b);
        int64_t th = 0;
        parseInt(ds, q, th);
        if (th > 100000) fail(ds, "thread index out of range");
        ri.thread = static_cast<int>(th);
        deferredThreads_.push_back({ri.thread, r.b});
        p = skipWsIn(q + 1, e);
        size_t rs = p;
        if (p < e && t_[p] == '%') ++p;
        if (p >= e || !isIdentStart(t_[p])) fail(rs, "expected a register name");
        p = identEnd(p, e);
        ri.reg = t_.substr(rs, p - rs);
        p = skipWsIn(p, e);
        if (p >= e || t_[p] != '=') fail(p, "expected '=' in register initialisation");
        p = skipWsIn(p + 1, e);
        if (p < e && t_[p] == '&') {  // Dat3M `P0:r1 = &x`: the same as `P0:r1 = x`
          p = skipWsIn(p + 1, e);
          if (p >= e || !isIdentStart(t_[p])) fail(p, "expected a location name after '&'");
        }
        if (p < e && isIdentStart(t_[p])) {
          size_t ne = identEnd(p, e);
          LocRef lr{t_.substr(p, ne - p), -1};
          if (!isLocation(lr.name)) fail(p, "unknown location `" + lr.name + "` (declare it before use)");
          size_t lo = p;
          p = ne;
          if (p < e && t_[p] == '@') {
            p = parseCtaSuffix(p, e, lr.cta);
            checkLocRef(lr, lo);
          }
          ri.addressOf = lr;
        } else {
          p = parseInt(p, e, ri.value);
        }
        p = skipWsIn(p, e);
        if (p < e) fail(p, "unexpected text after register initialisation");
        test_.regInits.push_back(std::move(ri));
        return;
      }
    }
    // `x = 0`, `x`, `y @ generic aliases x`.
    if (!isIdentStart(t_[p])) fail(p, "expected a location declaration, register initialisation or directive");
    LocationDecl d;
    d.src = src_.loc(r.b);
    size_t ne = identEnd(p, e);
    d.name = t_.substr(p, ne - p);
    size_t nameOff = p;
    p = skipWsIn(ne, e);
    if (p < e && t_[p] == '@') {
      if (p == ne && t_.compare(p + 1, 3, "cta") == 0)
        fail(p, "a per-CTA location must be declared `.shared " + d.name + "@ctaN`");
      p = skipWsIn(p + 1, e);
      size_t we = identEnd(p, e);
      std::string proxy = t_.substr(p, we - p);
      auto px = ptx::parseProxy(proxy);
      if (!px || *px == ptx::Proxy::Async || *px == ptx::Proxy::Tensormap)
        fail(p, "expected a proxy (generic, surface, texture, constant) after '@'");
      p = skipWsIn(we, e);
      if (!startsWithWord(p, "aliases")) fail(p, "expected `aliases`");
      p = skipWsIn(p + 7, e);
      if (p >= e || !isIdentStart(t_[p])) fail(p, "expected the aliased location's name");
      size_t te = identEnd(p, e);
      d.aliasOf = t_.substr(p, te - p);
      d.aliasProxy = *px;
      p = skipWsIn(te, e);
      if (d.aliasOf == d.name) fail(nameOff, "a location cannot alias itself");
    } else if (p < e && t_[p] == '=') {
      p = skipWsIn(p + 1, e);
      p = skipWsIn(parseInt(p, e, d.init), e);
    }
    if (p < e) fail(p, "unexpected text in declaration of `" + d.name + "`");
    addLocation(std::move(d), nameOff);
  }

  // ---- threads ----
  size_t findConditionStart(size_t p) const {
    while (p < t_.size()) {
      size_t s = skipBlank(p);
      if (startsWithWord(s, "exists") || startsWithWord(s, "forall") || startsWithWord(s, "locations") ||
          (s < t_.size() && t_[s] == '~'))
        return s;
      size_t le = lineEnd(p);
      if (le >= t_.size()) break;
      p = le + 1;
    }
    fail(t_.size(), "missing final condition (`exists`, `~exists` or `forall`)");
  }

  // `P0@cta 0,cluster 0,gpu 0` (without the trailing ':').
  Thread parseThreadHeader(Range r) {
    r = trim(r);
    Thread th;
    th.src = src_.loc(r.b);
    size_t p = r.b, e = r.e;
    if (p >= e || t_[p] != 'P' || p + 1 >= e || !isDigit(t_[p + 1]))
      fail(p, "expected a thread header `P<n>@cta C,cluster K,gpu G`");
    size_t q = p + 1;
    while (q < e && isDigit(t_[q])) ++q;
    th.name = t_.substr(p, q - p);
    int index = static_cast<int>(test_.threads.size());
    for (const auto& other : test_.threads)
      if (other.name == th.name) fail(p, "duplicate thread name `" + th.name + "`");
    if (th.name != "P" + std::to_string(index))
      fail(p, "thread `" + th.name + "` declared in position " + std::to_string(index) +
                  "; threads must be numbered P0, P1, ... in order");
    th.where.cta = index;
    bool haveCluster = false;
    p = skipWsIn(q, e);
    if (p < e) {
      if (t_[p] != '@') fail(p, "expected '@' and a placement after the thread name");
      p = skipWsIn(p + 1, e);
      std::set<std::string> seen;
      while (true) {
        size_t ks = p;
        size_t ke = identEnd(p, e);
        std::string key = t_.substr(ks, ke - ks);
        if (key != "cta" && key != "cluster" && key != "gpu" && key != "warp" && key != "grid")
          fail(ks, "expected `cta`, `cluster`, `gpu`, `warp` or `grid` in thread placement");
        if (!seen.insert(key).second) fail(ks, "duplicate `" + key + "` in thread placement");
        p = skipWsIn(ke, e);
        int64_t v = 0;
        size_t vs = p;
        p = skipWsIn(parseInt(p, e, v), e);
        if (v < 0 || v > 1000000) fail(vs, "placement id out of range");
        int iv = static_cast<int>(v);
        if (key == "cta") th.where.cta = iv;
        if (key == "cluster") th.where.cluster = iv, haveCluster = true;
        if (key == "gpu") th.where.gpu = iv;
        if (key == "warp") th.where.warp = iv;
        if (key == "grid") {
          // Two grids of one stream: the primary (0) and its programmatic dependent (1), PTX ISA 9.2
          // §9.7.13.13; a longer chain of dependent launches is not modelled.
          if (iv > 1)
            fail(vs, "grid " + std::to_string(iv) +
                         ": a test has the primary grid 0 and its dependent grid 1 (PTX ISA 9.2 §9.7.13.13)");
          th.where.grid = iv;
        }
        if (p >= e) break;
        if (t_[p] != ',') fail(p, "expected ',' between placement items");
        p = skipWsIn(p + 1, e);
      }
    }
    if (!haveCluster) th.where.cluster = th.where.cta;
    return th;
  }

  void parseColumns(Range r) {
    std::vector<Range> rows = splitOn(r, ';');
    Range tail = trim(rows.back());
    rows.pop_back();
    if (rows.empty()) rows.push_back(tail), tail = Range{tail.e, tail.e};
    bool header = true;
    for (Range row : rows) {
      Range tr = trim(row);
      std::vector<Range> cells = splitOn(row, '|');
      if (header) {
        if (tr.b >= tr.e) fail(tr.b, "expected the thread header row");
        for (Range c : cells) test_.threads.push_back(parseThreadHeader(c));
        header = false;
        continue;
      }
      if (tr.b >= tr.e) continue;  // empty row
      if (cells.size() != test_.threads.size())
        fail(tr.b, "row has " + std::to_string(cells.size()) + " column(s) but the header declares " +
                       std::to_string(test_.threads.size()) + " thread(s)");
      for (size_t i = 0; i < cells.size(); ++i) parseStatements(trim(cells[i]), test_.threads[i]);
    }
    if (header) fail(r.b, "expected the thread header row");
    if (tail.b < tail.e) fail(tail.b, "thread row not terminated by ';'");
  }

  static bool isBlockHeader(std::string_view line) {
    if (line.size() < 3 || line[0] != 'P' || !isDigit(line[1]) || line.back() != ':') return false;
    size_t i = 1;
    while (i < line.size() && isDigit(line[i])) ++i;
    return line[i] == '@' || i == line.size() - 1;
  }

  void parseBlocks(Range r) {
    Thread* cur = nullptr;
    size_t p = r.b;
    while (p < r.e) {
      size_t le = std::min(lineEnd(p), r.e);
      Range line = trim(Range{p, le});
      if (line.b < line.e) {
        std::string_view lv(t_.data() + line.b, line.e - line.b);
        if (isBlockHeader(lv)) {
          test_.threads.push_back(parseThreadHeader(Range{line.b, line.e - 1}));
          cur = &test_.threads.back();
        } else {
          if (cur == nullptr) fail(line.b, "instruction before the first thread header `P0@...:`");
          for (Range st : splitOn(line, ';')) parseStatements(trim(st), *cur);
        }
      }
      p = le + 1;
    }
    if (test_.threads.empty()) fail(r.b, "expected a thread header `P0@cta 0,cluster 0,gpu 0:`");
  }

  // Labels (`L:`) followed by at most one instruction.
  void parseStatements(Range r, Thread& th) {
    pollBudget("parse");
    size_t p = r.b;
    while (p < r.e) {
      if (isIdentStart(t_[p])) {
        size_t q = p;
        while (q < r.e && (isIdentChar(t_[q]) || t_[q] == '.')) ++q;
        if (q < r.e && t_[q] == ':' && (q + 1 >= r.e || t_[q + 1] != ':')) {
          Stmt s;
          s.label = t_.substr(p, q - p);
          s.src = src_.loc(p);
          for (const auto& o : th.code)
            if (o.label == s.label) fail(p, "duplicate label `" + s.label + "` in thread " + th.name);
          th.code.push_back(std::move(s));
          p = skipWsIn(q + 1, r.e);
          continue;
        }
      }
      break;
    }
    if (p >= r.e) return;
    Stmt s;
    s.src = src_.loc(p);
    s.instr = parseInstr(Range{p, r.e});
    for (auto& pre : pre_) {  // the fence of a Dat3M `.sc` access (dialectForms)
      Stmt f;
      f.src = s.src;
      f.instr = std::move(pre);
      th.code.push_back(std::move(f));
    }
    pre_.clear();
    th.code.push_back(std::move(s));
  }

  // ---- instructions ----
  struct Part {
    std::string text;
    size_t off;
  };

  Instr parseInstr(Range r) {
    Instr in;
    size_t p = r.b, e = r.e;
    in.src = src_.loc(p);
    if (t_[p] == '@') {
      Guard g;
      p = skipWsIn(p + 1, e);
      if (p < e && t_[p] == '!') {
        g.negated = true;
        p = skipWsIn(p + 1, e);
      }
      size_t gs = p;
      if (p < e && t_[p] == '%') ++p;
      if (p >= e || !isIdentStart(t_[p])) fail(gs, "expected a predicate register after '@'");
      p = identEnd(p, e);
      g.pred = t_.substr(gs, p - gs);
      in.guard = g;
      p = skipWsIn(p, e);
      if (p >= e) fail(gs, "guard `@" + g.pred + "` is not followed by an instruction");
    }
    // Mnemonic with its qualifiers: letters, digits, '_', '.', and "::".
    size_t ms = p;
    if (!isIdentStart(t_[p])) fail(p, std::string("expected an instruction, found '") + t_[p] + "'");
    while (p < e) {
      char c = t_[p];
      if (isIdentChar(c) || c == '.') {
        ++p;
      } else if (c == ':' && p + 1 < e && t_[p + 1] == ':') {
        p += 2;
      } else {
        break;
      }
    }
    if (p < e && !isSpace(t_[p]) && t_[p] != '[' && t_[p] != '{')
      fail(p, std::string("unexpected character '") + t_[p] + "' in instruction mnemonic");
    QualOffsets ql;
    ql.mnemonic = ms;
    const OpInfo* op = &decodeMnemonic(Range{ms, p}, in, ql);
    std::vector<RawOperand> raw = parseOperands(Range{skipWsIn(p, e), e});
    if (isLocalLoad(*op, in, raw)) {
      // Dat3M `ld r0, 1` / `ld r0, r1` (also tld/suld/cold): a local register assignment, i.e. `mov`.
      in.op = OpId::Mov;
      op = &ptx::opInfo(OpId::Mov);
    }
    bareAddr_ = false;
    assignOperands(*op, raw, in, Range{ms, p});
    InstrContext cx;
    cx.quals.mnemonic = src_.loc(ql.mnemonic);
    for (const auto& [group, off] : ql.byGroup) cx.quals.byGroup.emplace(group, src_.loc(off));
    cx.mnemonicSpelling = mnemonicSpelling_;
    cx.bareAddresses = bareAddr_;
    cx.blockLayout = test_.blockLayout;
    cx.warnings = &test_.warnings;
    cx.before = &pre_;
    readDialectForms(in, cx);
    validate(in, cx);
    return in;
  }

  /// `ld r0, v` with no qualifier and a value (immediate, special register or a register that is not
  /// a declared location) as its second operand: the Dat3M local assignment.
  bool isLocalLoad(const OpInfo& op, const Instr& in, const std::vector<RawOperand>& raw) const {
    if (op.id != OpId::Ld && op.id != OpId::Tld && op.id != OpId::Suld && op.id != OpId::Cold) return false;
    if (in.sem != Sem::None || in.scope != Scope::None || in.space != Space::Generic || in.type != DataType::None ||
        !in.flags.empty() || raw.size() != 2)
      return false;
    const Operand& v = raw[1].op;
    if (v.kind == Operand::Kind::Imm || v.kind == Operand::Kind::Special) return true;
    return raw[1].ident && v.loc.cta < 0 && !isLocation(v.name);
  }

  std::vector<Part> splitParts(Range r) const {
    std::vector<Part> parts;
    size_t s = r.b;
    for (size_t i = r.b; i <= r.e; ++i)
      if (i == r.e || t_[i] == '.') {
        if (i == s) fail(i, i == r.e ? "mnemonic ends with '.'" : "empty qualifier ('..') in mnemonic");
        parts.push_back({t_.substr(s, i - s), s});
        s = i + 1;
      }
    return parts;
  }

  const OpInfo& decodeMnemonic(Range r, Instr& in, QualOffsets& ql) {
    std::vector<Part> parts = splitParts(r);
    const OpInfo* op = nullptr;
    size_t k = parts.size();
    auto joined = [&](size_t n) {
      std::string s;
      for (size_t i = 0; i < n; ++i) s += (i ? "." : "") + parts[i].text;
      return s;
    };
    for (; k > 0; --k) {
      std::string s = joined(k);
      op = ptx::findOp(s);
      if (op == nullptr) op = ptx::findAlias(s);
      if (op != nullptr) {
        mnemonicSpelling_ = s;
        break;
      }
    }
    std::string full = text(r);
    if (op == nullptr) {
      std::vector<std::string> all = ptx::allSpellings();
      std::string best;
      int bestD = std::numeric_limits<int>::max();
      for (size_t n = 1; n <= parts.size(); ++n) {
        std::string cand = closestMatch(joined(n), all);
        if (cand.empty()) continue;
        int d = editDistance(joined(n), cand);
        if (d < bestD) bestD = d, best = cand;
      }
      std::string msg = "unknown instruction `" + full + "`";
      if (!best.empty())
        msg += "; did you mean `" + best + "`?";
      else
        msg += " (not in the operations table harness/ptx/PtxOps.def)";
      fail(r.b, msg);
    }
    in.op = op->id;
    std::vector<std::string_view> groups = ptx::qualifierGroups(*op);
    std::vector<std::string> given(groups.size());
    std::vector<std::pair<size_t, std::string>> flags;  // (group index, flag)
    for (size_t i = k; i < parts.size(); ++i) {
      const std::string& q = parts[i].text;
      size_t off = parts[i].off;
      size_t g = 0;
      for (; g < groups.size(); ++g)
        if (given[g].empty() && ptx::groupAccepts(groups[g], q)) break;
      if (g == groups.size()) {
        // Already given, or not accepted at all.
        for (size_t h = 0; h < groups.size(); ++h)
          if (ptx::groupAccepts(groups[h], q)) {
            if (groups[h] == "sem" &&
                ((given[h] == "mmio" && q == "relaxed") || (given[h] == "relaxed" && q == "mmio"))) {
              in.sem = Sem::Mmio;
              given[h] = "mmio";
              g = groups.size() + 1;  // handled
              break;
            }
            if (given[h] == q) fail(off, "duplicate qualifier " + quoteQual(q) + " in `" + full + "`");
            fail(off, "conflicting qualifier " + quoteQual(q) + ": `" + std::string(op->mnemonic) + "` already has " +
                          quoteQual(given[h]) + " (" + std::string(groups[h]) + ")");
          }
        if (g == groups.size() + 1) continue;
        std::vector<std::string> accepted;
        for (auto gr : groups)
          for (auto v : ptx::qualifierGroupValues(gr)) accepted.emplace_back(v);
        std::string msg = "unknown qualifier " + quoteQual(q) + " for `" + std::string(op->mnemonic) + "`";
        std::string best = closestMatch(q, accepted);
        if (!best.empty()) {
          msg += "; did you mean " + quoteQual(best) + "?";
        } else if (accepted.empty()) {
          msg += " (it takes no qualifiers)";
        } else {
          msg += " (accepted:";
          for (const auto& a : accepted) msg += " ." + a;
          msg += ")";
        }
        fail(off, msg);
      }
      given[g] = q;
      std::string gname(groups[g]);
      ql.byGroup[gname] = off;
      if (gname == "sem") {
        in.sem = *ptx::parseSem(q);
      } else if (gname == "scope") {
        in.scope = *ptx::parseScope(q);
      } else if (gname == "space" || gname == "dstspace") {
        in.space = *ptx::parseSpace(q);
      } else if (gname == "srcspace") {
        in.srcSpace = *ptx::parseSpace(q);
      } else if (gname == "type") {
        in.type = *ptx::parseDataType(q);
      } else {
        flags.emplace_back(g, q);
      }
    }
    std::stable_sort(flags.begin(), flags.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& f : flags) in.flags.push_back(f.second);
    return *op;
  }

  std::vector<RawOperand> parseOperands(Range r) {
    std::vector<RawOperand> out;
    size_t p = r.b;
    if (p >= r.e) return out;
    char sep = ' ';
    while (true) {
      p = skipWsIn(p, r.e);
      out.push_back(parseOperand(p, r.e, true));
      out.back().sep = sep;
      p = skipWsIn(p, r.e);
      if (p >= r.e) break;
      if (t_[p] != ',' && t_[p] != '|') fail(p, std::string("expected ',' between operands, found '") + t_[p] + "'");
      sep = t_[p];
      ++p;
      if (skipWsIn(p, r.e) >= r.e) fail(p, "expected an operand after ','");
    }
    return out;
  }

  // Reads `%name` or `%name.x`; returns Special or Reg operand.
  Operand parsePercent(size_t& p, size_t e) {
    Operand o;
    size_t s = p;
    ++p;
    if (p >= e || !isIdentStart(t_[p])) fail(s, "expected a register name after '%'");
    p = identEnd(p, e);
    std::string base = t_.substr(s + 1, p - s - 1);
    bool vec = std::find(kVecSpecials.begin(), kVecSpecials.end(), base) != kVecSpecials.end();
    bool scalar = std::find(kScalarSpecials.begin(), kScalarSpecials.end(), base) != kScalarSpecials.end();
    if (p < e && t_[p] == '.') {
      size_t q = identEnd(p + 1, e);
      std::string comp = t_.substr(p + 1, q - p - 1);
      if (!vec) fail(s, "unknown special register `%" + base + "." + comp + "`");
      if (comp != "x" && comp != "y" && comp != "z") fail(p + 1, "expected .x, .y or .z after `%" + base + "`");
      p = q;
      o.kind = Operand::Kind::Special;
      o.name = "%" + base + "." + comp;
    } else if (vec) {
      fail(s, "special register `%" + base + "` needs a component (.x, .y or .z)");
    } else {
      o.kind = scalar ? Operand::Kind::Special : Operand::Kind::Reg;
      o.name = "%" + base;
    }
    return o;
  }

  RawOperand parseOperand(size_t& p, size_t e, bool allowVector) {
    RawOperand ro;
    ro.off = p;
    Operand& o = ro.op;
    o.src = src_.loc(p);
    char c = t_[p];
    if (c == '[') {
      o.kind = Operand::Kind::Addr;
      p = skipWsIn(p + 1, e);
      size_t bs = p;
      if (p < e && t_[p] == '%') {
        Operand r = parsePercent(p, e);
        if (r.kind != Operand::Kind::Reg) fail(bs, "a special register cannot be an address");
        o.baseReg = r.name;
      } else if (p < e && isIdentStart(t_[p])) {
        size_t ne = identEnd(p, e);
        std::string name = t_.substr(p, ne - p);
        p = ne;
        if (isLocation(name)) {
          o.loc.name = name;
          if (p < e && t_[p] == '@') {
            p = parseCtaSuffix(p, e, o.loc.cta);
            checkLocRef(o.loc, bs);
          }
        } else {
          if (p < e && t_[p] == '@') fail(bs, "unknown location `" + name + "` (declare it in the initial state)");
          o.baseReg = name;
        }
      } else {
        fail(bs, "expected a location or register inside '[ ]'");
      }
      p = skipWsIn(p, e);
      if (p < e && (t_[p] == '+' || t_[p] == '-')) {
        bool neg = t_[p] == '-';
        p = skipWsIn(p + 1, e);
        p = skipWsIn(parseInt(p, e, o.imm), e);
        if (neg) o.imm = -o.imm;
      }
      if (p < e && t_[p] == ',') {
        // Tensor coordinates: `[tensorMap, {c0, c1}]` (cp.async.bulk.tensor, PTX ISA 9.2 §9.7.9.25.5.2).
        p = skipWsIn(p + 1, e);
        if (p >= e || t_[p] != '{') fail(p, "expected the tensor coordinates `{c0, ...}` after ',' in the address");
        RawOperand coords = parseOperand(p, e, true);
        o.elems = std::move(coords.op.elems);
        for (const auto& c : o.elems)
          if (c.kind != Operand::Kind::Reg && c.kind != Operand::Kind::Imm)
            throw DiagnosticError(c.src, "tensor coordinates must be registers or integers");
        p = skipWsIn(p, e);
      }
      if (p >= e || t_[p] != ']') fail(p, "expected ']' to close the address");
      ++p;
      return ro;
    }
    if (c == '{') {
      if (!allowVector) fail(p, "nested '{' in a vector operand");
      o.kind = Operand::Kind::Vector;
      p = skipWsIn(p + 1, e);
      while (true) {
        if (p >= e) fail(ro.off, "unterminated vector operand: missing '}'");
        RawOperand el = parseOperand(p, e, false);
        if (el.op.kind == Operand::Kind::Addr) fail(el.off, "an address cannot be a vector element");
        if (el.ident && isLocation(el.op.name))
          fail(el.off, "`" + el.op.name + "` is a location; vector elements must be registers");
        o.elems.push_back(el.op);
        p = skipWsIn(p, e);
        if (p < e && t_[p] == '}') break;
        if (p >= e || t_[p] != ',') fail(p, "expected ',' or '}' in vector operand");
        p = skipWsIn(p + 1, e);
      }
      ++p;
      return ro;
    }
    if (c == '_' && (p + 1 >= e || !isIdentChar(t_[p + 1]))) {
      o.kind = Operand::Kind::Sink;
      ++p;
      return ro;
    }
    if (isDigit(c) || ((c == '-' || c == '+') && p + 1 < e && isDigit(t_[p + 1]))) {
      o.kind = Operand::Kind::Imm;
      p = parseInt(p, e, o.imm);
      return ro;
    }
    if (c == '%') {
      Operand r = parsePercent(p, e);
      r.src = o.src;
      o = r;
      return ro;
    }
    if (isIdentStart(c)) {
      size_t ne = identEnd(p, e);
      o.kind = Operand::Kind::Reg;
      o.name = t_.substr(p, ne - p);
      p = ne;
      ro.ident = true;
      if (p < e && t_[p] == '@') {
        if (!isLocation(o.name)) fail(ro.off, "unknown location `" + o.name + "` (declare it in the initial state)");
        o.loc.name = o.name;
        p = parseCtaSuffix(p, e, o.loc.cta);
        checkLocRef(o.loc, ro.off);
      }
      return ro;
    }
    fail(p, std::string("unexpected character '") + c + "' in operands");
  }

  static bool compatible(const RawOperand& r, std::string_view code) {
    using K = Operand::Kind;
    K k = r.op.kind;
    switch (code[0]) {
      case 'd': return k == K::Reg || k == K::Sink || k == K::Vector;
      case 'p': return k == K::Reg || k == K::Sink;
      case 'v': return k == K::Reg || k == K::Sink || k == K::Vector;
      case 'a': return k == K::Addr || r.ident;
      case 's': return k == K::Reg || k == K::Imm || k == K::Special;
      case 'i': return k == K::Imm;
      case 'l': return r.ident && r.op.loc.cta < 0;
      default: return false;
    }
  }

  static bool match(const std::vector<RawOperand>& ops, const std::vector<std::string_view>& sig, size_t i, size_t j,
                    std::vector<std::string_view>& assign, std::vector<size_t>& pos) {
    if (j == sig.size()) return i == ops.size();
    bool optional = sig[j].size() > 1 && sig[j].back() == '?';
    if (i < ops.size() && compatible(ops[i], sig[j])) {
      assign[i] = sig[j].substr(0, 1);
      pos[i] = j;
      if (match(ops, sig, i + 1, j + 1, assign, pos)) return true;
    }
    if (optional) return match(ops, sig, i, j + 1, assign, pos);
    return false;
  }

  static std::string describeSignature(const std::vector<std::string_view>& sig) {
    std::string s;
    for (auto code : sig) {
      bool opt = code.size() > 1 && code.back() == '?';
      std::string w;
      switch (code[0]) {
        case 'd': w = "dest"; break;
        case 'p': w = "pred"; break;
        case 'v': w = "dest"; break;
        case 'a': w = "[addr]"; break;
        case 's': w = "src"; break;
        case 'i': w = "imm"; break;
        case 'l': w = "label"; break;
        default: w = std::string(code);
      }
      if (!s.empty()) s += ", ";
      s += opt ? "{" + w + "}" : w;
    }
    return s.empty() ? "no operands" : s;
  }

  void assignOperands(const OpInfo& op, std::vector<RawOperand>& raw, Instr& in, Range mn) {
    std::vector<std::string_view> sig = ptx::operandSignature(op);
    std::vector<std::string_view> assign(raw.size());
    std::vector<size_t> pos(raw.size(), 0);
    if (!match(raw, sig, 0, 0, assign, pos)) {
      size_t at = raw.empty() ? mn.b : raw.front().off;
      fail(at, "`" + text(mn) + "` expects operands (" + describeSignature(sig) + "), got " +
                   std::to_string(raw.size()) + " operand(s) that do not fit (PTX ISA 9.2 §" +
                   std::string(op.isaSection) + ")");
    }
    // Operands joined by '|' (`d|p`) only where the row writes '|', and nowhere else.
    const std::vector<char> seps = ptx::operandSeparators(op);
    for (size_t i = 1; i < raw.size(); ++i) {
      const char want = pos[i] < seps.size() ? seps[pos[i]] : ',';
      if (raw[i].sep != want && (raw[i].sep == '|' || want == '|'))
        fail(raw[i].off, want == '|'
                             ? "`" + text(mn) + "` joins these two operands with '|' (PTX ISA 9.2 §" +
                                   std::string(op.isaSection) + ")"
                             : std::string("'|' joins operands only in `elect.sync d|p` (PTX ISA 9.2 §9.7.13.14)"));
    }
    for (size_t i = 0; i < raw.size(); ++i) {
      RawOperand& r = raw[i];
      Operand& o = r.op;
      char code = assign[i][0];
      if (r.ident) {
        bool loc = isLocation(o.name) || o.loc.cta >= 0;
        if (code == 'a') {
          if (!loc) fail(r.off, "`" + o.name + "` is not a declared location (declare it in the initial state)");
          bareAddr_ = true;
          o.kind = Operand::Kind::Addr;
          o.loc.name = o.name;
          o.name.clear();
        } else if (code == 'l') {
          o.kind = Operand::Kind::Label;
        } else if (code == 's') {
          if (loc) {
            o.kind = Operand::Kind::Loc;
            o.loc.name = o.name;
            o.name.clear();
          }
        } else if (loc) {
          fail(r.off, "`" + o.name + "` is a declared location; expected a register here");
        }
      }
      in.operands.push_back(o);
    }
  }

  // ---- validation of qualifier combinations (PTX ISA 9.2) ----
  // ---- cross-reference checks ----
  std::set<int> ctas() const {
    std::set<int> s;
    for (const auto& th : test_.threads) s.insert(th.where.cta);
    return s;
  }

  void checkLocRef(const LocRef& r, size_t off) {
    const LocationDecl* d = findLoc(r.name);
    if (d == nullptr) fail(off, "unknown location `" + r.name + "`");
    if (r.cta >= 0) {
      if (d->space != Space::SharedCta)
        fail(off, "`" + r.name + "@cta" + std::to_string(r.cta) + "`: only shared locations have per-CTA copies");
      if (d->ownerCta >= 0 && d->ownerCta != r.cta)
        fail(off, "`" + r.name + "` exists only in CTA " + std::to_string(d->ownerCta));
      deferredCtas_.push_back({r.cta, off});
    }
  }

  /// CTA and cluster ids are numbered within their GPU (`P0@cta 0,gpu 0` and `P1@cta 0,gpu 1` are two
  /// CTAs). The AST numbers them uniquely in the test: when two GPUs reuse an id, the CTAs and clusters
  /// of the k-th GPU (in increasing id order, k >= 1) are renumbered `k*S + id`, S = 1 + the largest id.
  void numberCtasPerGpu() {
    std::map<int, std::set<int>> gpusOfCta, gpusOfCluster;
    std::set<int> gpus;
    int maxId = 0;
    for (const auto& th : test_.threads) {
      gpusOfCta[th.where.cta].insert(th.where.gpu);
      gpusOfCluster[th.where.cluster].insert(th.where.gpu);
      gpus.insert(th.where.gpu);
      maxId = std::max({maxId, th.where.cta, th.where.cluster});
    }
    bool reused = false;
    for (const auto& [id, gs] : gpusOfCta) reused = reused || gs.size() > 1;
    for (const auto& [id, gs] : gpusOfCluster) reused = reused || gs.size() > 1;
    if (!reused) return;
    const int stride = maxId + 1;
    for (auto& th : test_.threads) {
      const int k = static_cast<int>(std::distance(gpus.begin(), gpus.find(th.where.gpu)));
      th.where.cta += k * stride;
      th.where.cluster += k * stride;
    }
  }

  void checkThreads() {
    numberCtasPerGpu();
    std::map<int, const Thread*> byCta;
    std::map<int, int> clusterGpu;
    for (const auto& th : test_.threads) {
      auto [it, fresh] = byCta.emplace(th.where.cta, &th);
      if (!fresh && (it->second->where.cluster != th.where.cluster || it->second->where.gpu != th.where.gpu))
        throw DiagnosticError(th.src, "thread " + th.name + " is in CTA " + std::to_string(th.where.cta) + " like " +
                                          it->second->name + " but names a different cluster or gpu");
      if (!fresh && it->second->where.grid != th.where.grid)
        throw DiagnosticError(th.src, "thread " + th.name + " is in CTA " + std::to_string(th.where.cta) + " like " +
                                          it->second->name +
                                          " but names another grid: the CTAs of two grids are distinct, give them "
                                          "distinct ids");
      for (const auto& other : test_.threads)
        if (other.where.cta != th.where.cta && other.where.cluster == th.where.cluster &&
            other.where.grid != th.where.grid)
          throw DiagnosticError(
              th.src, "thread " + th.name + ": cluster " + std::to_string(th.where.cluster) + " cannot span two grids");
      if (th.where.grid > 0 && th.where.gpu != 0)
        throw DiagnosticError(
            th.src,
            "thread " + th.name + ": the dependent grid runs on the primary grid's device (gpu 0) in this model");
      auto [cit, cfresh] = clusterGpu.emplace(th.where.cluster, th.where.gpu);
      if (!cfresh && cit->second != th.where.gpu)
        throw DiagnosticError(
            th.src, "thread " + th.name + ": cluster " + std::to_string(th.where.cluster) + " cannot span two GPUs");
      // Labels.
      std::set<std::string> labels;
      for (const auto& s : th.code)
        if (!s.label.empty()) labels.insert(s.label);
      for (const auto& s : th.code)
        if (s.instr)
          for (const auto& o : s.instr->operands)
            if (o.kind == Operand::Kind::Label && !labels.count(o.name))
              throw DiagnosticError(o.src, "undefined label `" + o.name + "` in thread " + th.name);
    }
  }

  void checkDeferred() {
    std::set<int> cs = ctas();
    std::set<int64_t> pending;
    for (int64_t id : test_.clcPending) {
      if (cs.count(static_cast<int>(id)) != 0)
        fail(clcOff_, "`.clc_pending` CTA id " + std::to_string(id) +
                          " is a CTA of the test (already launched); pending clusters must be other CTA ids");
      if (!pending.insert(id).second) fail(clcOff_, "duplicate `.clc_pending` CTA id " + std::to_string(id));
    }
    for (const auto& [cta, off] : deferredCtas_)
      if (!cs.count(cta)) fail(off, "CTA " + std::to_string(cta) + " has no thread in this test");
    for (const auto& [th, off] : deferredThreads_)
      if (th < 0 || th >= static_cast<int>(test_.threads.size()))
        fail(off, "undeclared thread " + std::to_string(th) + " (the test has " + std::to_string(test_.threads.size()) +
                      " thread(s))");
  }

  // ---- locations list and final condition ----
  void parseTail(size_t p) {
    p_ = p;
    if (startsWithWord(p_, "locations")) {
      p_ = skipWs(p_ + 9);
      if (p_ >= t_.size() || t_[p_] != '[') fail(p_, "expected '[' after `locations`");
      p_ = skipWs(p_ + 1);
      while (p_ < t_.size() && t_[p_] != ']') {
        test_.observed.push_back(parseTerm());
        p_ = skipWs(p_);
        if (p_ < t_.size() && t_[p_] == ';') p_ = skipWs(p_ + 1);
      }
      if (p_ >= t_.size()) fail(p, "unterminated `locations [`: missing ']'");
      p_ = skipWs(p_ + 1);
    }
    Condition& c = test_.condition;
    if (p_ < t_.size() && t_[p_] == '~') {
      p_ = skipWs(p_ + 1);
      if (!startsWithWord(p_, "exists")) fail(p_, "expected `exists` after '~'");
      c.quant = Condition::Quant::NotExists;
      p_ += 6;
    } else if (startsWithWord(p_, "exists")) {
      c.quant = Condition::Quant::Exists;
      p_ += 6;
    } else if (startsWithWord(p_, "forall")) {
      c.quant = Condition::Quant::Forall;
      p_ += 6;
    } else {
      fail(p_, "expected the final condition (`exists`, `~exists` or `forall`)");
    }
    c.prop = parseImplies(0);
    p_ = skipWs(p_);
    if (p_ < t_.size() && t_[p_] == ';') p_ = skipWs(p_ + 1);
    // `ptxmm parse` (and herd7) end the canonical form with `Hash=<md5>`: accepted and ignored, so that
    // the output of `parse` is itself a valid input.
    if (t_.compare(p_, 5, "Hash=") == 0) {
      size_t q = p_ + 5;
      while (q < t_.size() && std::isxdigit(static_cast<unsigned char>(t_[q]))) ++q;
      if (q == p_ + 5) fail(q, "expected the hexadecimal hash after `Hash=`");
      p_ = skipWs(q);
    }
    if (p_ < t_.size()) fail(p_, "unexpected text after the final condition");
    checkDeferred();
  }

  bool eat(std::string_view tok) {
    p_ = skipWs(p_);
    if (t_.compare(p_, tok.size(), tok) == 0) {
      p_ += tok.size();
      return true;
    }
    return false;
  }

  Prop parseImplies(int depth) {
    if (depth > 200) fail(p_, "condition nested too deeply");
    Prop l = parseOr(depth + 1);
    if (eat("=>")) {
      Prop r = parseImplies(depth + 1);
      Prop x;
      x.kind = Prop::Kind::Implies;
      x.kids = {std::move(l), std::move(r)};
      return x;
    }
    return l;
  }
  Prop parseOr(int depth) {
    Prop l = parseAnd(depth);
    while (eat("\\/")) {
      Prop x;
      x.kind = Prop::Kind::Or;
      x.kids = {std::move(l), parseAnd(depth)};
      l = std::move(x);
    }
    return l;
  }
  Prop parseAnd(int depth) {
    Prop l = parseNot(depth);
    while (eat("/\\")) {
      Prop x;
      x.kind = Prop::Kind::And;
      x.kids = {std::move(l), parseNot(depth)};
      l = std::move(x);
    }
    return l;
  }
  Prop parseNot(int depth) {
    if (depth > 200) fail(p_, "condition nested too deeply");
    if (eat("~")) {
      Prop x;
      x.kind = Prop::Kind::Not;
      x.kids = {parseNot(depth + 1)};
      return x;
    }
    return parseAtom(depth);
  }
  Prop parseAtom(int depth) {
    p_ = skipWs(p_);
    if (eat("(")) {
      Prop x = parseImplies(depth + 1);
      if (!eat(")")) fail(p_, "expected ')' in condition");
      return x;
    }
    Prop x;
    if (startsWithWord(p_, "true")) {
      p_ += 4;
      x.kind = Prop::Kind::True;
      return x;
    }
    if (startsWithWord(p_, "false")) {
      p_ += 5;
      x.kind = Prop::Kind::False;
      return x;
    }
    x.lhs = parseTerm();
    p_ = skipWs(p_);
    if (eat("==") || eat("=")) {
      x.kind = Prop::Kind::Eq;
    } else if (eat("!=") || eat("<>")) {
      x.kind = Prop::Kind::Ne;
    } else {
      fail(p_, "expected '=', '==' or '!=' after a term in the condition");
    }
    x.rhs = parseTerm();
    return x;
  }

  Term parseTerm() {
    p_ = skipWs(p_);
    size_t s = p_;
    size_t e = t_.size();
    Term t;
    if (p_ >= e) fail(p_, "expected a term (register `1:r0`, location or integer) in the condition");
    char c = t_[p_];
    if (isDigit(c) || c == 'P' || c == '-' || c == '+') {
      // Thread register `1:r0` / `P1:r0`, or an integer.
      size_t q = p_ + (c == 'P' ? 1 : 0);
      size_t ds = q;
      while (q < e && isDigit(t_[q])) ++q;
      if (q > ds && q < e && t_[q] == ':') {
        int64_t th = 0;
        parseInt(ds, q, th);
        if (th >= static_cast<int64_t>(test_.threads.size()))
          fail(s, "undeclared thread " + std::to_string(th) + " in condition (the test has " +
                      std::to_string(test_.threads.size()) + " thread(s))");
        t.kind = Term::Kind::Reg;
        t.thread = static_cast<int>(th);
        p_ = q + 1;
        size_t rs = p_;
        if (p_ < e && t_[p_] == '%') ++p_;
        if (p_ >= e || !isIdentStart(t_[p_])) fail(rs, "expected a register name after ':'");
        p_ = identEnd(p_, e);
        t.reg = t_.substr(rs, p_ - rs);
        return t;
      }
      if (c != 'P') {
        t.kind = Term::Kind::Const;
        p_ = parseInt(p_, e, t.value);
        return t;
      }
    }
    bool bracket = c == '[';
    if (bracket) p_ = skipWs(p_ + 1);
    if (p_ >= e || !isIdentStart(t_[p_])) fail(p_, "expected a term (register `1:r0`, location or integer)");
    size_t ne = identEnd(p_, e);
    t.kind = Term::Kind::Loc;
    t.loc.name = t_.substr(p_, ne - p_);
    size_t lo = p_;
    p_ = ne;
    if (!isLocation(t.loc.name))
      fail(lo, "unknown location `" + t.loc.name + "` in condition (registers are written `<thread>:<reg>`)");
    if (p_ < e && t_[p_] == '@') {
      p_ = parseCtaSuffix(p_, e, t.loc.cta);
      checkLocRef(t.loc, lo);
    }
    if (bracket) {
      p_ = skipWs(p_);
      if (p_ >= e || t_[p_] != ']') fail(p_, "expected ']'");
      ++p_;
    }
    return t;
  }

  const Source& src_;
  const std::string& t_;
  std::string file_;
  Test test_;
  size_t p_ = 0;
  size_t clcOff_ = 0;                                    // where `.clc_pending` was written
  std::vector<std::pair<int, size_t>> deferredCtas_;     // CTA ids referenced (must have a thread)
  std::vector<std::pair<int, size_t>> deferredThreads_;  // thread indices referenced by register inits
  std::string mnemonicSpelling_;                         // the base mnemonic or alias of the current instruction
  bool bareAddr_ = false;   // the current instruction names a location bare (Dat3M spelling)
  std::vector<Instr> pre_;  // instructions that precede the current one (fence of a Dat3M `.sc` access)
};

}  // namespace

Test parseTest(std::string_view text, const std::string& file) {
  Source src(text, file);
  Parser p(src, file);
  return p.parseTest();
}

ParseResult tryParseTest(std::string_view text, const std::string& file) {
  ParseResult r;
  try {
    r.test = parseTest(text, file);
  } catch (const DiagnosticError& e) {
    r.diagnostics.push_back(e.diagnostic());
  } catch (const BudgetExceeded&) {
    throw;  // not a property of the input: the caller reports the spent budget
  } catch (const std::exception& e) {
    r.diagnostics.push_back(
        Diagnostic{Severity::Error, SourceLoc{file, 0, 0}, std::string("internal error: ") + e.what()});
  }
  return r;
}

Test parseFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DiagnosticError(SourceLoc{path, 0, 0}, "cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parseTest(ss.str(), path);
}

ParseResult tryParseFile(const std::string& path) {
  ParseResult r;
  try {
    r.test = parseFile(path);
  } catch (const DiagnosticError& e) {
    r.diagnostics.push_back(e.diagnostic());
  } catch (const BudgetExceeded&) {
    throw;  // not a property of the input: the caller reports the spent budget
  } catch (const std::exception& e) {
    r.diagnostics.push_back(
        Diagnostic{Severity::Error, SourceLoc{path, 0, 0}, std::string("internal error: ") + e.what()});
  }
  return r;
}

Instr parseInstruction(std::string_view text, const std::vector<std::string>& locations, const std::string& file) {
  Source src(text, file);
  Parser p(src, file);
  return p.parseSingleInstr(locations);
}

}  // namespace ptxmm::litmus
