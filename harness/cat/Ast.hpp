// Abstract syntax of cat models (the herd7 7.58 dialect of the cat language).
// Every node carries the SourceLoc of its first token. Produced by cat/Parser, consumed by
// cat/Interpreter (which compiles it to a slot-resolved form once per model).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "support/Diagnostic.hpp"

namespace ptxmm::cat {

struct Expr;
/// Shared immutable expression pointer (sub-trees are never mutated after parsing).
using ExprPtr = std::shared_ptr<const Expr>;

/// Expression forms.
enum class ExprKind {
  EmptySet,     ///< {}
  Zero,         ///< 0 (the empty relation)
  Universe,     ///< _
  Var,          ///< name
  Tag,          ///< 'name
  Str,          ///< "string" (only meaningful as an argument to a few primitives)
  Union,        ///< a | b (n-ary, args)
  Inter,        ///< a & b
  Diff,         ///< a \ b
  Seq,          ///< a ; b (n-ary)
  Cross,        ///< S * T
  Add,          ///< e ++ S
  Star,         ///< r*
  Plus,         ///< r+
  Opt,          ///< r?
  Complement,   ///< ~a
  Inverse,      ///< r^-1
  Diag,         ///< [S]
  App,          ///< f x (args[0] = f, args[1] = argument; a tuple argument is a Tuple node)
  Tuple,        ///< (a, b, ...) and ()
  ExplicitSet,  ///< {e1, ..., en}
  Fun,          ///< fun pattern -> body
  Let,          ///< let bindings in body
  LetRec,       ///< let rec bindings in body
  MatchTag,     ///< match e with || 'tag -> e ... || _ -> e end
  MatchSet,     ///< match e with || {} -> e1 || x ++ rest -> e2 end (also split form s1 | x ++ s2)
  If,           ///< if cond then e1 else e2
  Try,          ///< try e1 with e2
};

/// A binding pattern: one name (`x`, `_`) or a tuple of names (`(x, y)`, `()`).
struct Pattern {
  SourceLoc loc;
  bool tuple = false;              ///< (x, y) form
  std::vector<std::string> names;  ///< "_" ignores; one element if !tuple
};

struct Binding;

/// Condition of `if` (expression or instruction form).
struct Cond {
  /// Condition forms.
  enum class Kind { Eq, Subset, In, Variant, Not, And, Or };
  Kind kind = Kind::Variant;
  SourceLoc loc;
  ExprPtr lhs, rhs;                        ///< Eq/Subset/In operands
  std::string variant;                     ///< Variant name
  std::vector<std::shared_ptr<Cond>> sub;  ///< Not (1) / And / Or (2) operands
};
/// Shared condition pointer.
using CondPtr = std::shared_ptr<const Cond>;

/// One arm of a `match`.
struct MatchArm {
  SourceLoc loc;
  std::string tag;        ///< MatchTag: the tag ("" = default arm `_`)
  bool emptyArm = false;  ///< MatchSet: `{} -> e`
  std::string elem;       ///< MatchSet: x of `x ++ rest`
  std::string rest;       ///< MatchSet: rest of `x ++ rest`
  std::string below;      ///< MatchSet split form: s1 of `s1 | x ++ s2` ("" if not split)
  ExprPtr body;
};

/// One expression node.
struct Expr {
  ExprKind kind = ExprKind::EmptySet;
  SourceLoc loc;
  std::string name;               ///< Var / Tag / Str
  std::vector<ExprPtr> args;      ///< operands (binary ops have 2; Union/Seq may have more)
  Pattern param;                  ///< Fun parameter
  std::vector<Binding> bindings;  ///< Let / LetRec
  std::vector<MatchArm> arms;     ///< MatchTag / MatchSet (args[0] is the scrutinee)
  CondPtr cond;                   ///< If
};

/// `pattern = expr` in a let (function sugar `let f(x) = e` is already turned into a Fun).
struct Binding {
  SourceLoc loc;
  Pattern pat;
  ExprPtr expr;
};

/// Kinds of checks.
enum class CheckKind {
  Check,      ///< plain: the execution is rejected when the test is false
  Flag,       ///< flag: raised when the test is true
  Undefined,  ///< undefined_unless: the execution is undefined when the test is false
  Assert,     ///< assert: the model run is aborted when the test is false
};

/// The tested property of a check.
enum class CheckTest { Acyclic, Irreflexive, Empty };

struct Instr;
/// Shared immutable instruction pointer.
using InstrPtr = std::shared_ptr<const Instr>;
struct ModelFile;

/// Instruction forms.
enum class InstrKind {
  Let,           ///< let p = e and ...
  LetRec,        ///< let rec p = e and ... [when ...]
  Check,         ///< [flag|undefined_unless|assert] [~]acyclic|irreflexive|empty e [as name]
  Show,          ///< show e as name / show x, y
  Unshow,        ///< unshow x, y
  Include,       ///< include "file"
  Procedure,     ///< procedure name(params) = body end
  Call,          ///< call name(args) [as name]
  Forall,        ///< forall x in S do body end
  With,          ///< with x from S
  Enum,          ///< enum Name = 'a || 'b
  If,            ///< if cond then-body [else else-body] end
  Match,         ///< match e with || 'tag -> body ... end
  Debug,         ///< debug e; also `let ... in e` at instruction level (both ignored)
  Instructions,  ///< bell `instructions K[...]` / `default` (ignored)
};

/// One top-level (or body) instruction.
struct Instr {
  InstrKind kind = InstrKind::Let;
  SourceLoc loc;
  std::vector<Binding> bindings;  ///< Let / LetRec
  ExprPtr expr;                   ///< Check / Show (e) / Call (argument) / Forall, With (set) / Match / Debug
  CondPtr cond;                   ///< If
  CheckKind checkKind = CheckKind::Check;
  CheckTest test = CheckTest::Acyclic;
  bool negated = false;            ///< ~acyclic etc.
  std::string name;                ///< `as` name; Procedure / Call / Enum name; With/Forall variable; Include file
  std::vector<std::string> names;  ///< Show/Unshow names; Enum tags
  Pattern param;                   ///< Procedure parameter
  std::vector<InstrPtr> body;      ///< Procedure / Forall / If-then
  std::vector<InstrPtr> elseBody;  ///< If-else
  std::vector<MatchArm> arms;      ///< Match (arm bodies are in armBodies)
  std::vector<std::vector<InstrPtr>> armBodies;  ///< Match arm instruction lists
  std::shared_ptr<const ModelFile> included;     ///< Include: the resolved file (set by the loader)
  bool recursive = false;                        ///< procedure rec
  bool when = false;  ///< LetRec `when TEST`: the test (expr, test, negated, name) must hold of the fixpoint
};

/// One parsed cat file.
struct ModelFile {
  std::string path;              ///< as given to the parser
  std::string title;             ///< header name ("" if none)
  std::vector<InstrPtr> instrs;  ///< top-level instructions
};

}  // namespace ptxmm::cat
