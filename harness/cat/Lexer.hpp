// Tokeniser for cat models (herd7 7.58 lexical rules: nested (* *) comments, // and # comments,
// identifiers containing '-' and '.', tags 'name, strings without escapes, ^-1 as one token).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/Diagnostic.hpp"

namespace ptxmm::cat {

/// Token kinds.
enum class Tok {
  End,      ///< end of input
  Ident,    ///< identifier (not a keyword)
  Keyword,  ///< reserved word (text holds it)
  TagLit,   ///< 'name (text holds name without the quote)
  String,   ///< "text" (text holds the contents)
  Num,      ///< digits (only 0 is meaningful)
  Punct,    ///< operator or delimiter (text holds it: | || & && * + ++ ? ~ ^-1 \ ; , = -> ( ) [ ] { } _)
};

/// One token with its location.
struct Token {
  Tok kind = Tok::End;
  std::string text;
  SourceLoc loc;
};

/// Splits `text` into tokens (ending with Tok::End); throws DiagnosticError on bad input.
[[nodiscard]] std::vector<Token> lexCat(std::string_view text, const std::string& file);

/// Whether `word` is a reserved word of the cat language.
[[nodiscard]] bool isCatKeyword(std::string_view word);

}  // namespace ptxmm::cat
