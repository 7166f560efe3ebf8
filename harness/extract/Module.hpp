// The PTX module reader of `ptxmm extract`: a whole module as `nvcc -ptx` / `cuobjdump -ptx` write it
// (directives, kernels and device functions with their parameters and performance directives, `.reg`,
// `.shared`, `.local` and `.global` declarations, `{ }` scopes of inlined asm with their local registers
// and labels, `.file` / `.loc` debug line information), read into statements the abstract execution
// (Extract.hpp) walks. Syntax only: instructions keep their opcode text and operand texts; names local to a
// `{ }` scope are made unique (`P_OUT` of the third scope becomes `P_OUT#3`) so a body is one flat list.
// Bad input gets a DiagnosticError located `file:line:col`; every loop of the reader is bounded by the
// input's length.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/Diagnostic.hpp"

namespace ptxmm::extract {

/// A CUDA source position from the `.loc` directive in force (the outermost `inlined_at` position, i.e. the
/// line of the kernel's own source that called the inlined helper).
struct SourcePos {
  std::string file;  ///< path from the `.file` directive
  int line = 0;
  auto operator<=>(const SourcePos&) const = default;
};

/// One statement of a function body: a label or an instruction.
struct PtxStmt {
  std::string label;                  ///< non-empty: a label statement
  std::string opcode;                 ///< "mbarrier.try_wait.parity.shared::cta.b64"
  std::string guard;                  ///< guard predicate (renamed), "" if none
  bool guardNeg = false;              ///< `@!p`
  std::vector<std::string> operands;  ///< operand texts without blanks, names renamed: "[%r5+8]", "{%r1,%r2}"
  std::string text;                   ///< the instruction as written (one line, blanks collapsed)
  int line = 0;                       ///< PTX line
  int col = 0;
  std::optional<SourcePos> source;  ///< `.loc` in force (none without -lineinfo or at line 0)
};

/// A `.param` of a kernel or function.
struct PtxParam {
  std::string name;
  std::string type;  ///< "u64", "b8", ...
  int64_t size = 0;  ///< bytes (array size × element size)
  int64_t align = 0;
};

/// A variable in `.shared`, `.global`, `.local` or `.const` (module or function level).
struct PtxVar {
  std::string name;
  std::string space;  ///< "shared", "global", "local", "const"
  int64_t size = 0;   ///< bytes; 0 for an `.extern` array of unknown size (dynamic shared memory)
  int64_t align = 0;
  bool isExtern = false;
  int line = 0;
};

/// A `.entry` or `.func` with a body.
struct PtxFunction {
  std::string name;
  bool isEntry = false;
  std::vector<PtxParam> params;
  std::vector<PtxParam> results;        ///< `.func (.param .b32 r) f(...)`
  std::vector<PtxVar> vars;             ///< function-level `.shared` / `.local` declarations
  std::vector<std::string> callParams;  ///< `.param` declared in the body (call arguments, renamed)
  int maxntid[3] = {0, 0, 0};           ///< `.maxntid` / `.reqntid` (0 = not given)
  bool reqntid = false;
  int clusterDim[3] = {0, 0, 0};  ///< `.reqnctapercluster` (0 = not given)
  std::vector<PtxStmt> body;
  int line = 0;
};

/// A PTX module.
struct PtxModule {
  std::string file;
  std::string version;
  std::string target;
  std::vector<PtxFunction> functions;  ///< with bodies, in order
  std::vector<PtxVar> vars;            ///< module-level variables
  std::map<int, std::string> files;    ///< `.file N "path"`
  [[nodiscard]] const PtxFunction* function(std::string_view name) const;
};

/// Limits of the reader (inputs beyond them are refused with a located error).
struct ReadLimits {
  size_t maxStatements = 200000;
  int maxScopeDepth = 64;
};

/// Reads a PTX module from `text` (`file` names it in diagnostics). Throws DiagnosticError.
[[nodiscard]] PtxModule readModule(std::string_view text, const std::string& file, const ReadLimits& limits = {});

/// Reads the PTX module in `path`. Throws DiagnosticError (also when the file cannot be read).
[[nodiscard]] PtxModule readModuleFile(const std::string& path, const ReadLimits& limits = {});

}  // namespace ptxmm::extract
