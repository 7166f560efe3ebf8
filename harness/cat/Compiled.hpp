// The compiled form of a cat model: the AST with every name resolved to a frame slot, a built-in
// index or a primitive, variant conditions decided, includes flattened, checks numbered. Built once
// per (model, options) by cat::Interpreter; evaluation (cat/Interpreter.hpp) does no string work.
// Internal to cat/, except CheckInfo and InterpreterOptions, which are part of the interpreter API.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "cat/Ast.hpp"
#include "cat/Model.hpp"

namespace ptxmm::cat {

/// Options fixed when an interpreter is built.
struct InterpreterOptions {
  std::vector<std::string> variants;    ///< names for which `if "name"` / `variant "name"` holds
  std::vector<std::string> skipChecks;  ///< check (`as`) and call names to skip (herd -skipchecks)
  /// Built-in names that change from one candidate execution to the next. Top-level definitions
  /// that depend on none of them (nor on `with` variables) are "static": with a RunCache they are
  /// evaluated once and reused by later runs (see Interpreter::run).
  std::vector<std::string> dynamicNames = {"rf", "co", "fr", "sc", "FW"};
};

/// Static description of one check of the model.
struct CheckInfo {
  std::string name;  ///< `as` name, or "<test>@<file>:<line>" (e.g. "acyclic@ptx.cat:120")
  CheckKind kind = CheckKind::Check;
  CheckTest test = CheckTest::Acyclic;
  bool negated = false;  ///< written with `~` (e.g. `flag ~empty race`)
  SourceLoc loc;         ///< location of the check instruction
};

namespace detail {

/// Expression opcodes of the compiled form.
enum class Op {
  EmptySet,
  Zero,
  Universe,
  Local,
  Builtin,
  Prim,
  Tag,
  Str,
  Union,
  Inter,
  Diff,
  Seq,
  Cross,
  Add,
  Star,
  Plus,
  Opt,
  Compl,
  Inv,
  Diag,
  App,
  Tuple,
  ExplicitSet,
  Fun,
  Proc,
  Let,
  LetRec,
  MatchTag,
  MatchSet,
  If,
  Try
};

/// Primitive functions known to the interpreter.
enum class Prim {
  Domain,
  Range,
  ClassesLoc,
  Linearisations,
  Fail,
  Classes,         ///< classes r: the equivalence classes of r
  Tag2Scope,       ///< tag2scope / tag2level 't: the scope relation named by the tag
  Tag2Events,      ///< tag2events 't: the event set named by the tag
  Bisimulation,    ///< bisimulation(t, e): the largest bisimulation of t within e
  GenerateOrders,  ///< generate_orders(S, r): the engine's co on S, if it extends r (cat/HerdLib.hpp)
  GenerateCos      ///< generate_cos(r) = generate_orders(W, r)
};

struct CExpr;
struct CFun;
struct CProc;
struct CCond;
struct CInstr;

/// A compiled binding: pattern slots (-1 for `_`) and the right-hand side.
struct CBind {
  SourceLoc loc;
  std::string name;        ///< first bound name (messages)
  bool tuple = false;      ///< tuple pattern
  std::vector<int> slots;  ///< slot per pattern name
  const CExpr* expr = nullptr;
  bool isFun = false;  ///< right-hand side is a fun / procedure (bound eagerly)
};

/// A compiled match arm.
struct CArm {
  int tag = -1;           ///< MatchTag: tag id, -1 = default
  bool emptyArm = false;  ///< MatchSet `{}`
  int elemSlot = -1, restSlot = -1, belowSlot = -1;
  const CExpr* body = nullptr;
};

/// A compiled expression node.
struct CExpr {
  Op op = Op::EmptySet;
  SourceLoc loc;
  int depth = 0;     ///< Local: frames up
  int slot = -1;     ///< Local: slot index
  int id = -1;       ///< Builtin index / Prim id / Tag id
  std::string name;  ///< variable name (messages) / string literal
  std::vector<const CExpr*> args;
  const CFun* fun = nullptr;
  const CProc* proc = nullptr;
  std::vector<CBind> binds;
  std::vector<CArm> arms;
  const CCond* cond = nullptr;
  /// A static subexpression of a dynamic top-level definition or check (computeStatic): its value is kept
  /// in the run cache under this index, like a static definition's; -1 = evaluated every run.
  int cacheId = -1;
  /// Local naming a static top-level `let x = [S]` from the top frame's expressions (computeStatic): S, which
  /// a sequence takes as a restriction (Interpreter::seqRestricting). Null otherwise.
  const CExpr* diagArg = nullptr;
};

/// A compiled function: parameters bound in a fresh frame of nslots slots.
struct CFun {
  SourceLoc loc;
  std::string name;
  bool tuple = false;
  std::vector<int> params;
  int nslots = 0;
  const CExpr* body = nullptr;
};

/// A compiled condition.
struct CCond {
  Cond::Kind kind = Cond::Kind::Variant;
  SourceLoc loc;
  const CExpr* lhs = nullptr;
  const CExpr* rhs = nullptr;
  bool variantValue = false;
  std::vector<const CCond*> sub;
};

/// Instruction opcodes of the compiled form.
enum class IOp { Let, LetRec, Check, Show, Call, Forall, With, Match, If };

/// A compiled instruction.
struct CInstr {
  IOp op = IOp::Let;
  SourceLoc loc;
  std::vector<CBind> binds;     ///< Let / LetRec
  int check = -1;               ///< Check: index in CompiledModel::checks; With: its choice check (merged algebras)
  const CExpr* expr = nullptr;  ///< Check / Call argument / Forall, With set / Match scrutinee
  std::vector<std::pair<std::string, const CExpr*>> shows;  ///< Show
  const CExpr* callee = nullptr;                            ///< Call: the procedure variable
  int varSlot = -1;                                         ///< Forall (in the body frame) / With (in the top frame)
  int nslots = 0;                                           ///< Forall body frame size
  std::vector<CInstr> body;                                 ///< Forall / If-then
  std::vector<CInstr> elseBody;                             ///< If-else
  const CCond* cond = nullptr;                              ///< If
  std::vector<int> armTags;                                 ///< Match (-1 = default)
  std::vector<std::vector<CInstr>> armBodies;               ///< Match
};

/// A compiled procedure.
struct CProc {
  SourceLoc loc;
  std::string name;
  bool tuple = false;
  std::vector<int> params;
  int nslots = 0;
  std::vector<CInstr> body;
};

/// The whole compiled model.
struct CompiledModel {
  std::deque<CExpr> exprs;
  std::deque<CFun> funs;
  std::deque<CProc> procs;
  std::deque<CCond> conds;
  std::vector<CInstr> top;
  int topSlots = 0;
  std::vector<std::string> builtinNames;  ///< free names, asked from the algebra
  std::vector<std::string> boundNames;    ///< names the model defines (for "did you mean")
  std::vector<std::string> tagNames;      ///< tag id -> name
  std::vector<int> tagEnum;               ///< tag id -> enum index (-1 if undeclared)
  std::vector<std::vector<int>> enums;    ///< enum index -> tag ids
  std::vector<CheckInfo> checks;
  std::vector<char> staticSlot;      ///< top slot -> its definition is static (cacheable)
  std::vector<char> dynamicBuiltin;  ///< builtin index -> listed in dynamicNames (or its fallback reads one)
  int cachedExprs = 0;               ///< static subexpressions with a CExpr::cacheId
  /// builtin index -> herd7 name definition used when the algebra does not know the name (cat/HerdLib.hpp),
  /// evaluated in a fresh frame of builtinFallbackSlots[index] slots; null if none.
  std::vector<const CExpr*> builtinFallback;
  std::vector<int> builtinFallbackSlots;  ///< see builtinFallback
  std::vector<std::string> emptyBound;    ///< sorted names of bound-empty herd entries the model uses
};

/// Compiles a loaded model; throws DiagnosticError on static errors (e.g. `with` inside a procedure).
[[nodiscard]] CompiledModel compileModel(const Model& model, const InterpreterOptions& opts);

/// compileModel, shared: a model's files are immutable, so the compilation of the same files with the
/// same options is kept per process (thread-safe; the cache holds the files, so their addresses stay
/// valid keys, and is emptied when it reaches a bound). The engines build interpreters per test.
[[nodiscard]] std::shared_ptr<const CompiledModel> compileModelShared(const Model& model,
                                                                      const InterpreterOptions& opts);

}  // namespace detail
}  // namespace ptxmm::cat
