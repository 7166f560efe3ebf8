#include "cat/Lexer.hpp"

#include <array>
#include <cctype>

namespace ptxmm::cat {

namespace {

constexpr std::array kKeywords = {
    "let",     "rec",          "and",     "in",     "when",   "fun",  "match",   "with",
    "end",     "begin",        "if",      "then",   "else",   "try",  "acyclic", "irreflexive",
    "empty",   "subset",       "as",      "show",   "unshow", "flag", "assert",  "undefined_unless",
    "include", "procedure",    "call",    "forall", "do",     "from", "enum",    "debug",
    "variant", "instructions", "default", "catdep", "not"};

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-';
}

}  // namespace

bool isCatKeyword(std::string_view word) {
  for (const char* k : kKeywords)
    if (word == k) return true;
  return false;
}

std::vector<Token> lexCat(std::string_view text, const std::string& file) {
  std::vector<Token> out;
  size_t i = 0;
  int line = 1, col = 1;
  auto here = [&]() { return SourceLoc{file, line, col}; };
  auto advance = [&](size_t k) {
    for (size_t j = 0; j < k && i < text.size(); ++j, ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
  };
  auto peek = [&](size_t k) -> char { return i + k < text.size() ? text[i + k] : '\0'; };
  while (i < text.size()) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f') {
      advance(1);
      continue;
    }
    if (c == '(' && peek(1) == '*') {
      SourceLoc start = here();
      int depth = 0;
      do {
        if (i >= text.size()) throw DiagnosticError(start, "unterminated comment");
        if (text[i] == '(' && peek(1) == '*') {
          ++depth;
          advance(2);
        } else if (text[i] == '*' && peek(1) == ')') {
          --depth;
          advance(2);
        } else {
          advance(1);
        }
      } while (depth > 0);
      continue;
    }
    if ((c == '/' && peek(1) == '/') || c == '#') {
      while (i < text.size() && text[i] != '\n') advance(1);
      continue;
    }
    Token t;
    t.loc = here();
    if (c == '"') {
      size_t j = i + 1;
      while (j < text.size() && text[j] != '"' && text[j] != '\n') ++j;
      if (j >= text.size() || text[j] != '"') throw DiagnosticError(t.loc, "unterminated string");
      t.kind = Tok::String;
      t.text = std::string(text.substr(i + 1, j - i - 1));
      advance(j + 1 - i);
      out.push_back(std::move(t));
      continue;
    }
    if (c == '\'') {
      size_t j = i + 1;
      if (j < text.size() && (isIdentStart(text[j]) || text[j] == '_')) {
        while (j < text.size() && isIdentChar(text[j])) ++j;
        t.kind = Tok::TagLit;
        t.text = std::string(text.substr(i + 1, j - i - 1));
        advance(j - i);
        out.push_back(std::move(t));
        continue;
      }
      throw DiagnosticError(t.loc, "expected a tag name after '");
    }
    if (isIdentStart(c) || (c == '_' && isIdentStart(peek(1)))) {
      size_t j = i + 1;
      while (j < text.size() && isIdentChar(text[j])) ++j;
      if (j < text.size() && text[j] == '\'') ++j;
      t.text = std::string(text.substr(i, j - i));
      t.kind = isCatKeyword(t.text) ? Tok::Keyword : Tok::Ident;
      advance(j - i);
      out.push_back(std::move(t));
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      t.kind = Tok::Num;
      t.text = std::string(text.substr(i, j - i));
      advance(j - i);
      out.push_back(std::move(t));
      continue;
    }
    t.kind = Tok::Punct;
    if (c == '^') {
      // herd lexes `^` and `-1` as two tokens, so blanks may separate them (`r ^ -1`).
      size_t k = 1;
      while (peek(k) == ' ' || peek(k) == '\t') ++k;
      if (peek(k) == '-' && peek(k + 1) == '1') {
        t.text = "^-1";
        advance(k + 2);
        out.push_back(std::move(t));
        continue;
      }
      throw DiagnosticError(t.loc, "expected '^-1'");
    }
    static constexpr std::array kTwo = {"||", "&&", "++", "->"};
    bool two = false;
    for (const char* p : kTwo)
      if (c == p[0] && peek(1) == p[1]) {
        t.text = p;
        advance(2);
        two = true;
        break;
      }
    if (two) {
      out.push_back(std::move(t));
      continue;
    }
    static constexpr std::string_view kOne = "|&*+?~\\;,=()[]{}_";
    if (kOne.find(c) != std::string_view::npos) {
      t.text = std::string(1, c);
      advance(1);
      out.push_back(std::move(t));
      continue;
    }
    throw DiagnosticError(t.loc, std::string("unexpected character '") + c + "'");
  }
  Token end;
  end.kind = Tok::End;
  end.loc = here();
  out.push_back(std::move(end));
  return out;
}

}  // namespace ptxmm::cat
