#include "extract/Module.hpp"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <sstream>

namespace ptxmm::extract {

const PtxFunction* PtxModule::function(std::string_view name) const {
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

namespace {

struct Tok {
  enum class K : uint8_t { Word, Label, Punct, String, End };
  K k = K::End;
  std::string s;
  int line = 0;
  int col = 0;
};

bool wordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$' || c == '%' || c == '.' || c == ':';
}

/// Splits the module into tokens; comments dropped. A word ending in one ':' is a label.
std::vector<Tok> tokenize(std::string_view t, const std::string& file) {
  std::vector<Tok> out;
  int line = 1;
  size_t lineStart = 0;
  size_t i = 0;
  auto here = [&](size_t p) { return SourceLoc{file, line, static_cast<int>(p - lineStart) + 1}; };
  while (i < t.size()) {
    char c = t[i];
    if (c == '\n') {
      ++line;
      lineStart = ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < t.size() && t[i + 1] == '/') {
      while (i < t.size() && t[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < t.size() && t[i + 1] == '*') {
      SourceLoc at = here(i);
      i += 2;
      while (i + 1 < t.size() && !(t[i] == '*' && t[i + 1] == '/')) {
        if (t[i] == '\n') {
          ++line;
          lineStart = i + 1;
        }
        ++i;
      }
      if (i + 1 >= t.size()) throw DiagnosticError(at, "unterminated comment");
      i += 2;
      continue;
    }
    Tok tok;
    tok.line = line;
    tok.col = static_cast<int>(i - lineStart) + 1;
    if (c == '"') {
      size_t j = i + 1;
      while (j < t.size() && t[j] != '"' && t[j] != '\n') ++j;
      if (j >= t.size() || t[j] != '"') throw DiagnosticError(here(i), "unterminated string");
      tok.k = Tok::K::String;
      tok.s = std::string(t.substr(i + 1, j - i - 1));
      i = j + 1;
      out.push_back(std::move(tok));
      continue;
    }
    bool negNum = c == '-' && i + 1 < t.size() && std::isdigit(static_cast<unsigned char>(t[i + 1])) != 0;
    if (wordChar(c) || negNum) {
      size_t j = i + 1;
      while (j < t.size() && wordChar(t[j])) ++j;
      std::string w(t.substr(i, j - i));
      tok.k = Tok::K::Word;
      if (w.size() >= 2 && w.back() == ':' && w[w.size() - 2] != ':') {
        w.pop_back();
        tok.k = Tok::K::Label;
      }
      tok.s = std::move(w);
      i = j;
      out.push_back(std::move(tok));
      continue;
    }
    if (std::string_view("[]{}(),;@!+|<>=-*").find(c) != std::string_view::npos) {
      tok.k = Tok::K::Punct;
      tok.s = std::string(1, c);
      ++i;
      out.push_back(std::move(tok));
      continue;
    }
    throw DiagnosticError(here(i), fmt::format("unexpected character '{}' in PTX", c));
  }
  Tok end;
  end.line = line;
  end.col = 1;
  out.push_back(end);
  return out;
}

int64_t parseInt(const std::string& s, const SourceLoc& at) {
  try {
    size_t pos = 0;
    int64_t v = 0;
    if (s.size() > 2 && (s[1] == 'x' || s[1] == 'X'))
      v = static_cast<int64_t>(std::stoull(s.substr(2), &pos, 16)), pos += 2;
    else
      v = std::stoll(s, &pos, 10);
    if (pos != s.size() && !(pos + 1 == s.size() && (s[pos] == 'U' || s[pos] == 'u'))) throw std::invalid_argument(s);
    return v;
  } catch (const std::exception&) {
    throw DiagnosticError(at, fmt::format("expected an integer, found '{}'", s));
  }
}

/// Size in bytes of a PTX fundamental type ("u64" → 8); 0 if unknown.
int64_t typeSize(std::string_view ty) {
  if (ty == "pred") return 1;
  if (ty.size() < 2) return 0;
  std::string_view bits = ty.substr(1);
  if (bits == "8") return 1;
  if (bits == "16") return 2;
  if (bits == "32") return 4;
  if (bits == "64") return 8;
  if (bits == "128") return 16;
  return 0;
}

class Reader {
 public:
  Reader(std::vector<Tok> toks, std::string file, const ReadLimits& limits)
      : t_(std::move(toks)), file_(std::move(file)), limits_(limits) {}

  PtxModule run() {
    PtxModule m;
    m.file = file_;
    while (peek().k != Tok::K::End) {
      const Tok& tk = peek();
      if (tk.k != Tok::K::Word) throw err(tk, fmt::format("unexpected '{}' at module level", tk.s));
      if (tk.s == ".version") {
        next();
        m.version = next().s;
        continue;
      }
      if (tk.s == ".target") {
        next();
        m.target = next().s;
        while (isPunct(",")) {
          next();
          m.target += "," + next().s;
        }
        continue;
      }
      if (tk.s == ".address_size") {
        next();
        next();
        continue;
      }
      if (tk.s == ".file") {
        next();
        SourceLoc at = loc(peek());
        int n = static_cast<int>(parseInt(next().s, at));
        if (peek().k != Tok::K::String) throw err(peek(), "expected the file name of .file");
        m.files[n] = next().s;
        while (isPunct(",")) {
          next();
          next();
        }
        continue;
      }
      if (tk.s == ".section") {
        next();
        next();
        skipBalanced();
        continue;
      }
      if (tk.s == ".pragma") {
        skipTo(";");
        continue;
      }
      // Linkage, then a variable, a function or a prototype.
      size_t save = pos_;
      bool isExtern = false;
      while (peek().k == Tok::K::Word &&
             (peek().s == ".visible" || peek().s == ".extern" || peek().s == ".weak" || peek().s == ".common")) {
        isExtern = isExtern || peek().s == ".extern";
        next();
      }
      if (peek().s == ".entry" || peek().s == ".func") {
        bool entry = next().s == ".entry";
        auto f = function(entry, m);
        if (f) m.functions.push_back(std::move(*f));
        continue;
      }
      if (peek().s == ".global" || peek().s == ".shared" || peek().s == ".const" || peek().s == ".local") {
        m.vars.push_back(variable(isExtern));
        continue;
      }
      pos_ = save;
      throw err(peek(), fmt::format("unexpected '{}' at module level", peek().s));
    }
    return m;
  }

 private:
  std::vector<Tok> t_;
  size_t pos_ = 0;
  std::string file_;
  ReadLimits limits_;
  // .loc bookkeeping: position (file line col) -> where it was inlined
  std::map<std::tuple<int, int, int>, std::tuple<int, int, int>> inlinedAt_;
  std::optional<std::tuple<int, int, int>> curLoc_;

  const Tok& peek(size_t k = 0) const { return t_[std::min(pos_ + k, t_.size() - 1)]; }
  const Tok& next() {
    const Tok& tk = peek();
    if (pos_ + 1 < t_.size()) ++pos_;
    if (tk.k == Tok::K::End) throw err(tk, "unexpected end of the PTX module");
    return tk;
  }
  bool isPunct(const char* p) const { return peek().k == Tok::K::Punct && peek().s == p; }
  SourceLoc loc(const Tok& tk) const { return SourceLoc{file_, tk.line, tk.col}; }
  DiagnosticError err(const Tok& tk, const std::string& msg) const { return DiagnosticError(loc(tk), msg); }
  void expect(const char* p) {
    if (!isPunct(p)) throw err(peek(), fmt::format("expected '{}', found '{}'", p, peek().s));
    next();
  }
  void skipTo(const char* p) {
    while (!isPunct(p)) next();
    next();
  }
  void skipBalanced() {
    expect("{");
    int depth = 1;
    while (depth > 0) {
      const Tok& tk = next();
      if (tk.k == Tok::K::Punct && tk.s == "{") ++depth;
      if (tk.k == Tok::K::Punct && tk.s == "}") --depth;
    }
  }

  /// `.align N .type name[N]` with optional initializer, up to ';' (the state space is next()).
  PtxVar variable(bool isExtern) {
    PtxVar v;
    v.line = peek().line;
    v.space = next().s.substr(1);
    v.isExtern = isExtern;
    std::string ty;
    while (peek().k == Tok::K::Word && peek().s.starts_with(".")) {
      std::string q = next().s;
      if (q == ".align") {
        v.align = parseInt(next().s, loc(peek()));
      } else if (q == ".ptr" || q.starts_with(".v")) {
        continue;
      } else {
        ty = q.substr(1);
      }
    }
    if (peek().k != Tok::K::Word) throw err(peek(), "expected a variable name");
    v.name = next().s;
    int64_t elems = 1;
    while (isPunct("[")) {
      next();
      if (isPunct("]")) {
        next();
        elems = 0;
        continue;
      }
      elems *= parseInt(next().s, loc(peek()));
      expect("]");
    }
    v.size = elems * typeSize(ty);
    if (isPunct("<")) throw err(peek(), "a parameterized variable name is not a variable");
    while (!isPunct(";")) {
      if (isPunct("{")) {
        skipBalanced();
        continue;
      }
      next();
    }
    next();
    return v;
  }

  PtxParam param() {
    PtxParam p;
    if (peek().s != ".param" && peek().s != ".reg") throw err(peek(), "expected .param");
    next();
    std::string ty;
    while (peek().k == Tok::K::Word && peek().s.starts_with(".")) {
      std::string q = next().s;
      if (q == ".align")
        p.align = parseInt(next().s, loc(peek()));
      else if (q == ".ptr" || q == ".global" || q == ".shared" || q == ".const" || q == ".local")
        continue;
      else
        ty = q.substr(1);
    }
    if (peek().k != Tok::K::Word) throw err(peek(), "expected a parameter name");
    p.name = next().s;
    p.type = ty;
    int64_t elems = 1;
    while (isPunct("[")) {
      next();
      elems *= parseInt(next().s, loc(peek()));
      expect("]");
    }
    p.size = elems * typeSize(ty);
    return p;
  }

  std::vector<PtxParam> paramList() {
    std::vector<PtxParam> ps;
    expect("(");
    while (!isPunct(")")) {
      ps.push_back(param());
      if (isPunct(","))
        next();
      else if (!isPunct(")"))
        throw err(peek(), fmt::format("expected ',' or ')', found '{}'", peek().s));
    }
    next();
    return ps;
  }

  std::optional<PtxFunction> function(bool entry, PtxModule& m) {
    PtxFunction f;
    f.isEntry = entry;
    f.line = peek().line;
    if (!entry && isPunct("(")) f.results = paramList();
    if (peek().k != Tok::K::Word) throw err(peek(), "expected the function's name");
    f.name = next().s;
    if (isPunct("(")) f.params = paramList();
    while (peek().k == Tok::K::Word && peek().s.starts_with(".")) {
      std::string d = next().s;
      auto dims = [&](int* out) {
        for (int i = 0; i < 3; ++i) {
          out[i] = static_cast<int>(parseInt(next().s, loc(peek())));
          if (!isPunct(",")) break;
          next();
        }
      };
      if (d == ".maxntid" || d == ".reqntid") {
        dims(f.maxntid);
        f.reqntid = f.reqntid || d == ".reqntid";
      } else if (d == ".reqnctapercluster") {
        dims(f.clusterDim);
      } else if (d == ".noreturn" || d == ".explicitcluster") {
      } else {
        // .minnctapersm N, .maxnreg N, .maxclusterrank N, .pragma "..."; ...
        while (!(peek().k == Tok::K::Word && peek().s.starts_with(".")) && !isPunct("{") && !isPunct(";")) next();
      }
    }
    if (isPunct(";")) {  // prototype
      next();
      return std::nullopt;
    }
    body(f, m);
    return f;
  }

  /// The body: statements in `{ }` scopes; names declared in a nested scope get "#<scope>" appended.
  void body(PtxFunction& f, PtxModule& m) {
    struct Scope {
      int id;
      std::map<std::string, std::string> names;  // declared name → unique name
    };
    std::vector<Scope> scopes;
    int nextScope = 0;
    struct LabelUse {
      size_t stmt;
      size_t operand;
      std::vector<int> chain;
    };
    std::map<std::pair<int, std::string>, bool> labelDefs;  // (scope, name)
    std::vector<std::vector<int>> stmtScopes;
    expect("{");
    scopes.push_back(Scope{nextScope++, {}});
    auto chain = [&] {
      std::vector<int> c;
      for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) c.push_back(it->id);
      return c;
    };
    auto rename = [&](const std::string& w) -> std::string {
      // The name of a register / label: strip a `.x` component of special registers etc. (not renamed).
      for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
        auto found = it->names.find(w);
        if (found != it->names.end()) return found->second;
      }
      return w;
    };
    auto declare = [&](const std::string& name) {
      Scope& s = scopes.back();
      s.names[name] = s.id == 0 ? name : name + "#" + std::to_string(s.id);
    };
    // Label definitions are collected first: a branch may jump forward to a label of its scope.
    {
      size_t save = pos_;
      std::vector<int> st{0};
      int ids = 1;
      int depth = 1;
      while (depth > 0 && peek().k != Tok::K::End) {
        const Tok& tk = peek();
        if (tk.k == Tok::K::Punct && tk.s == "{") {
          ++depth;
          st.push_back(ids++);
        } else if (tk.k == Tok::K::Punct && tk.s == "}") {
          --depth;
          st.pop_back();
        } else if (tk.k == Tok::K::Label) {
          labelDefs[{st.empty() ? 0 : st.back(), tk.s}] = true;
        }
        ++pos_;
      }
      pos_ = save;
    }
    auto labelName = [&](const std::string& w, const std::vector<int>& ch) -> std::string {
      for (int id : ch)
        if (labelDefs.count({id, w})) return id == 0 ? w : w + "#" + std::to_string(id);
      return w;
    };
    while (true) {
      if (f.body.size() > limits_.maxStatements)
        throw err(peek(), fmt::format("more than {} statements in one function", limits_.maxStatements));
      const Tok& tk = peek();
      if (tk.k == Tok::K::End) throw err(tk, fmt::format("function {} is not closed by '}}'", f.name));
      if (tk.k == Tok::K::Punct && tk.s == "{") {
        next();
        if (static_cast<int>(scopes.size()) >= limits_.maxScopeDepth) throw err(tk, "scopes nested too deeply");
        scopes.push_back(Scope{nextScope++, {}});
        continue;
      }
      if (tk.k == Tok::K::Punct && tk.s == "}") {
        next();
        scopes.pop_back();
        if (scopes.empty()) break;
        continue;
      }
      if (tk.k == Tok::K::Label) {
        PtxStmt s;
        s.label = labelName(tk.s, chain());
        s.line = tk.line;
        s.col = tk.col;
        next();
        f.body.push_back(std::move(s));
        stmtScopes.push_back(chain());
        continue;
      }
      if (tk.k == Tok::K::Word && tk.s.starts_with(".")) {
        const std::string d = tk.s;
        if (d == ".reg") {
          next();
          while (peek().k == Tok::K::Word && peek().s.starts_with(".")) next();
          while (true) {
            if (peek().k != Tok::K::Word) throw err(peek(), "expected a register name");
            std::string name = next().s;
            if (isPunct("<")) {  // %r<10>: %r0 .. %r9
              next();
              int64_t n = parseInt(next().s, loc(peek()));
              expect(">");
              if (n < 0 || n > 1000000) throw err(peek(), "register range out of bounds");
              if (scopes.size() > 1)
                for (int64_t i = 0; i < n; ++i) declare(name + std::to_string(i));
            } else {
              declare(name);
            }
            if (!isPunct(",")) break;
            next();
          }
          expect(";");
          continue;
        }
        if (d == ".loc") {
          next();
          SourceLoc at = loc(peek());
          int fl = static_cast<int>(parseInt(next().s, at));
          int ln = static_cast<int>(parseInt(next().s, at));
          int cl = static_cast<int>(parseInt(next().s, at));
          std::optional<std::tuple<int, int, int>> inl;
          while (isPunct(",")) {
            next();
            std::string key = next().s;
            if (key == "inlined_at") {
              int a = static_cast<int>(parseInt(next().s, at));
              int b = static_cast<int>(parseInt(next().s, at));
              int c = static_cast<int>(parseInt(next().s, at));
              inl = std::tuple{a, b, c};
            } else {
              next();  // function_name X
            }
          }
          std::tuple<int, int, int> p{fl, ln, cl};
          if (inl) inlinedAt_[p] = *inl;
          std::tuple<int, int, int> outer = inl ? *inl : p;
          for (int k = 0; k < 32; ++k) {
            auto it = inlinedAt_.find(outer);
            if (it == inlinedAt_.end() || it->second == outer) break;
            outer = it->second;
          }
          curLoc_ = std::get<1>(outer) > 0 ? std::optional(outer) : std::nullopt;
          continue;
        }
        if (d == ".shared" || d == ".local" || d == ".global" || d == ".const") {
          f.vars.push_back(variable(false));
          continue;
        }
        if (d == ".extern") {
          next();
          f.vars.push_back(variable(true));
          continue;
        }
        if (d == ".param") {
          PtxParam p = param();
          declare(p.name);
          f.callParams.push_back(rename(p.name));
          expect(";");
          continue;
        }
        if (d == ".pragma" || d == ".maxnreg" || d == ".callprototype") {
          skipTo(";");
          continue;
        }
        if (d.starts_with(".")) {
          // Other directives inside a body (e.g. `.visible .func` prototypes of calls): to ';'.
          if (d == ".file") {
            next();
            int n = static_cast<int>(parseInt(next().s, loc(peek())));
            if (peek().k == Tok::K::String) m.files[n] = next().s;
          }
          skipTo(";");
          continue;
        }
      }
      // An instruction: [@[!]pred] opcode operands ;
      PtxStmt s;
      s.line = tk.line;
      s.col = tk.col;
      if (curLoc_) {
        // The `.file` directives usually follow the functions: the index is resolved at the end (readModule).
        s.source = SourcePos{std::to_string(std::get<0>(*curLoc_)), std::get<1>(*curLoc_)};
      }
      std::string text;
      if (isPunct("@")) {
        next();
        if (isPunct("!")) {
          next();
          s.guardNeg = true;
        }
        if (peek().k != Tok::K::Word) throw err(peek(), "expected a guard predicate");
        std::string g = next().s;
        s.guard = rename(g);
        text = fmt::format("@{}{} ", s.guardNeg ? "!" : "", g);
      }
      if (peek().k != Tok::K::Word) throw err(peek(), fmt::format("expected an instruction, found '{}'", peek().s));
      s.opcode = next().s;
      text += s.opcode;
      std::string cur, raw;
      std::vector<std::string> rawOperands;
      int depth = 0;
      while (!(depth == 0 && isPunct(";"))) {
        const Tok& o = next();
        if (o.k == Tok::K::Punct && (o.s == "[" || o.s == "{" || o.s == "(")) ++depth;
        if (o.k == Tok::K::Punct && (o.s == "]" || o.s == "}" || o.s == ")")) --depth;
        if (depth < 0) throw err(o, fmt::format("unbalanced '{}'", o.s));
        if (depth > limits_.maxScopeDepth) throw err(o, "operand nested too deeply");
        if (o.k == Tok::K::Label) throw err(o, "a label inside an instruction");
        if (depth == 0 && o.k == Tok::K::Punct && o.s == ",") {
          s.operands.push_back(cur);
          rawOperands.push_back(raw);
          cur.clear();
          raw.clear();
          continue;
        }
        cur += o.k == Tok::K::Word ? rename(o.s) : o.s;
        raw += o.s;
      }
      next();
      if (!cur.empty()) s.operands.push_back(cur);
      if (!raw.empty()) rawOperands.push_back(raw);
      // Every reader of a branch takes its last operand as the target.
      if ((s.opcode == "bra" || s.opcode.starts_with("bra.")) && s.operands.empty())
        throw DiagnosticError(SourceLoc{file_, s.line, s.col}, "`bra` needs a target label");
      // The text as written (the names of the source, not the renamed ones).
      for (size_t k = 0; k < rawOperands.size(); ++k) text += (k == 0 ? " " : ", ") + rawOperands[k];
      s.text = text + ";";
      f.body.push_back(std::move(s));
      stmtScopes.push_back(chain());
    }
    // Branch and call targets: labels of the innermost enclosing scope that defines them.
    for (size_t i = 0; i < f.body.size(); ++i) {
      auto& s = f.body[i];
      if (!s.label.empty() || s.operands.empty()) continue;
      if (s.opcode.starts_with("bra") || s.opcode.starts_with("brx")) {
        std::string& target = s.operands.back();
        target = labelName(target, stmtScopes[i]);
      }
    }
  }
};

}  // namespace

PtxModule readModule(std::string_view text, const std::string& file, const ReadLimits& limits) {
  Reader r(tokenize(text, file), file, limits);
  PtxModule m = r.run();
  for (auto& f : m.functions)
    for (auto& st : f.body)
      if (st.source) {
        auto it = m.files.find(std::atoi(st.source->file.c_str()));
        st.source->file = it != m.files.end() ? it->second : "file" + st.source->file;
      }
  return m;
}

PtxModule readModuleFile(const std::string& path, const ReadLimits& limits) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DiagnosticError(SourceLoc{path, 0, 0}, "cannot read the PTX file");
  std::stringstream ss;
  ss << in.rdbuf();
  return readModule(ss.str(), path, limits);
}

}  // namespace ptxmm::extract
