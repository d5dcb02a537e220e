// The abstract syntax tree of the kernel language.
//
// The parser builds it once and nothing changes it afterwards: semantic analysis keeps what it learns
// (types, resolved names, casts) in side tables keyed by node address (see ir/typed_function.h). Every node
// keeps the SourceRange of the text it came from, so any stage can point at the user's line. Nodes are owned
// by their parent through unique_ptr; a Module owns its functions and the SourceFile they point into.
//
// The tree mirrors Python's own `ast` module where the kernel subset has the construct, with the same names
// (BinOp, BoolOp, Compare, IfExp, AugAssign...), so a reader who knows one knows the other.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/source.h"

namespace gpujit {

// ---------------------------------------------------------------------------------------------------------
// Expressions

enum class ExprKind {
  Name,       // x
  IntLit,     // 42, 0x2a, 0b101, 1_000
  FloatLit,   // 1.0, .5, 1e-3
  BoolLit,    // True, False
  NoneLit,    // None
  StringLit,  // "text" (docstrings, print)
  UnaryOp,    // -x, +x, ~x, not x
  BinOp,      // x + y ...
  BoolOp,     // x and y and z, x or y
  Compare,    // a < b <= c
  Call,       // f(a, b, key=c)
  Attribute,  // x.attr
  Subscript,  // x[i], x[i, j], x[1:n]
  Slice,      // lower:upper:step, only as (part of) a subscript index
  Tuple,      // (a, b), a, b
  IfExp,      // a if c else b
};

enum class UnaryOpKind { Neg, Pos, Invert, Not };
enum class BinOpKind { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, LShift, RShift, BitAnd, BitOr, BitXor };
enum class BoolOpKind { And, Or };
enum class CmpOpKind { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };

const char* to_string(UnaryOpKind op);  // "-", "+", "~", "not"
const char* to_string(BinOpKind op);    // "+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^"
const char* to_string(BoolOpKind op);   // "and", "or"
const char* to_string(CmpOpKind op);    // "==", "!=", "<", "<=", ">", ">=", "is", "is not", "in", "not in"

struct Expr {
  explicit Expr(ExprKind k, SourceRange r) : kind(k), range(r) {}
  virtual ~Expr() = default;
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;

  const ExprKind kind;
  SourceRange range;

  template <typename T>
  const T* as() const { return kind == T::kKind ? static_cast<const T*>(this) : nullptr; }
  template <typename T>
  T* as() { return kind == T::kKind ? static_cast<T*>(this) : nullptr; }
};
using ExprPtr = std::unique_ptr<Expr>;

struct NameExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::Name;
  NameExpr(SourceRange r, std::string id) : Expr(kKind, r), id(std::move(id)) {}
  std::string id;
};

struct IntLitExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::IntLit;
  IntLitExpr(SourceRange r, uint64_t value) : Expr(kKind, r), value(value) {}
  /// The literal's magnitude; literals are never negative (-1 is UnaryOp(Neg, 1)). A literal over
  /// 2**64-1 is a parse error.
  uint64_t value;
};

struct FloatLitExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::FloatLit;
  FloatLitExpr(SourceRange r, double value, bool imaginary = false)
      : Expr(kKind, r), value(value), imaginary(imaginary) {}
  double value;
  bool imaginary;  // 2.5j: the complex128 0 + 2.5j (Python's imaginary literal)
};

struct BoolLitExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::BoolLit;
  BoolLitExpr(SourceRange r, bool value) : Expr(kKind, r), value(value) {}
  bool value;
};

struct NoneLitExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::NoneLit;
  explicit NoneLitExpr(SourceRange r) : Expr(kKind, r) {}
};

struct StringLitExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::StringLit;
  StringLitExpr(SourceRange r, std::string value, bool is_bytes = false)
      : Expr(kKind, r), value(std::move(value)), is_bytes(is_bytes) {}
  std::string value;  // escapes already decoded; adjacent literals already concatenated; str as UTF-8
  bool is_bytes;      // a b'...' literal: `value` holds its bytes
};

struct UnaryOpExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::UnaryOp;
  UnaryOpExpr(SourceRange r, UnaryOpKind op, ExprPtr operand)
      : Expr(kKind, r), op(op), operand(std::move(operand)) {}
  UnaryOpKind op;
  ExprPtr operand;
};

struct BinOpExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::BinOp;
  BinOpExpr(SourceRange r, BinOpKind op, ExprPtr lhs, ExprPtr rhs)
      : Expr(kKind, r), op(op), lhs(std::move(lhs)), rhs(std::move(rhs)) {}
  BinOpKind op;
  ExprPtr lhs, rhs;
  SourceRange op_range;  // the operator token, for diagnostics
};

struct BoolOpExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::BoolOp;
  BoolOpExpr(SourceRange r, BoolOpKind op, std::vector<ExprPtr> values)
      : Expr(kKind, r), op(op), values(std::move(values)) {}
  BoolOpKind op;
  std::vector<ExprPtr> values;  // two or more, evaluated left to right with short circuit
};

/// a < b <= c: left, ops = {Lt, LtE}, comparators = {b, c}; each operand is evaluated at most once.
struct CompareExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::Compare;
  CompareExpr(SourceRange r, ExprPtr left, std::vector<CmpOpKind> ops, std::vector<ExprPtr> comparators)
      : Expr(kKind, r), left(std::move(left)), ops(std::move(ops)), comparators(std::move(comparators)) {}
  ExprPtr left;
  std::vector<CmpOpKind> ops;
  std::vector<ExprPtr> comparators;
};

struct Keyword {
  std::string name;
  SourceRange name_range;
  ExprPtr value;
};

struct CallExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::Call;
  CallExpr(SourceRange r, ExprPtr func, std::vector<ExprPtr> args, std::vector<Keyword> keywords)
      : Expr(kKind, r), func(std::move(func)), args(std::move(args)), keywords(std::move(keywords)) {}
  ExprPtr func;
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
  /// `f(x, *t)`: starred[i] is set when args[i] was written `*args[i]` (a tuple unpacked into the call's
  /// positional arguments). Empty when no argument is starred, else as long as args.
  std::vector<bool> starred;
  bool is_starred(size_t i) const { return i < starred.size() && starred[i]; }
};

struct AttributeExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::Attribute;
  AttributeExpr(SourceRange r, ExprPtr value, std::string attr, SourceRange attr_range)
      : Expr(kKind, r), value(std::move(value)), attr(std::move(attr)), attr_range(attr_range) {}
  ExprPtr value;
  std::string attr;
  SourceRange attr_range;
};

/// x[i] has index i; x[i, j] has a TupleExpr index; x[a:b] has a SliceExpr index.
struct SubscriptExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::Subscript;
  SubscriptExpr(SourceRange r, ExprPtr value, ExprPtr index)
      : Expr(kKind, r), value(std::move(value)), index(std::move(index)) {}
  ExprPtr value;
  ExprPtr index;
};

struct SliceExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::Slice;
  SliceExpr(SourceRange r, ExprPtr lower, ExprPtr upper, ExprPtr step)
      : Expr(kKind, r), lower(std::move(lower)), upper(std::move(upper)), step(std::move(step)) {}
  ExprPtr lower, upper, step;  // each may be null
};

struct TupleExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::Tuple;
  TupleExpr(SourceRange r, std::vector<ExprPtr> elts) : Expr(kKind, r), elts(std::move(elts)) {}
  std::vector<ExprPtr> elts;
  /// A list display `[a, b]`. Only module-level values (the data of np.array([...]), which the CLI evaluates)
  /// and decorators (a list of signatures) hold one; inside a function a list is a syntax error, so semantic
  /// analysis never sees one.
  bool is_list = false;
};

struct IfExpExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::IfExp;
  IfExpExpr(SourceRange r, ExprPtr test, ExprPtr body, ExprPtr orelse)
      : Expr(kKind, r), test(std::move(test)), body(std::move(body)), orelse(std::move(orelse)) {}
  ExprPtr test, body, orelse;  // body if test else orelse
};

// ---------------------------------------------------------------------------------------------------------
// Statements

enum class StmtKind { Expr, Assign, AugAssign, If, For, While, Break, Continue, Return, Pass, Raise };

struct Stmt {
  explicit Stmt(StmtKind k, SourceRange r) : kind(k), range(r) {}
  virtual ~Stmt() = default;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  const StmtKind kind;
  SourceRange range;

  template <typename T>
  const T* as() const { return kind == T::kKind ? static_cast<const T*>(this) : nullptr; }
  template <typename T>
  T* as() { return kind == T::kKind ? static_cast<T*>(this) : nullptr; }
};
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

struct ExprStmt : Stmt {
  static constexpr StmtKind kKind = StmtKind::Expr;
  ExprStmt(SourceRange r, ExprPtr value) : Stmt(kKind, r), value(std::move(value)) {}
  ExprPtr value;
};

/// a = b = value: targets = {a, b}. A target is a Name, a Subscript, or a Tuple of targets.
struct AssignStmt : Stmt {
  static constexpr StmtKind kKind = StmtKind::Assign;
  AssignStmt(SourceRange r, std::vector<ExprPtr> targets, ExprPtr value)
      : Stmt(kKind, r), targets(std::move(targets)), value(std::move(value)) {}
  std::vector<ExprPtr> targets;
  ExprPtr value;
};

/// target op= value. The target is a Name or a Subscript.
struct AugAssignStmt : Stmt {
  static constexpr StmtKind kKind = StmtKind::AugAssign;
  AugAssignStmt(SourceRange r, ExprPtr target, BinOpKind op, ExprPtr value)
      : Stmt(kKind, r), target(std::move(target)), op(op), value(std::move(value)) {}
  ExprPtr target;
  BinOpKind op;
  ExprPtr value;
};

/// if/elif/else: an elif is an IfStmt as the only statement of orelse.
struct IfStmt : Stmt {
  static constexpr StmtKind kKind = StmtKind::If;
  IfStmt(SourceRange r, ExprPtr test, Block body, Block orelse)
      : Stmt(kKind, r), test(std::move(test)), body(std::move(body)), orelse(std::move(orelse)) {}
  ExprPtr test;
  Block body;
  Block orelse;
};

/// for target in iter: body [else: orelse]. The parser accepts any iterable expression; semantic analysis
/// accepts range(...) only.
struct ForStmt : Stmt {
  static constexpr StmtKind kKind = StmtKind::For;
  ForStmt(SourceRange r, ExprPtr target, ExprPtr iter, Block body, Block orelse)
      : Stmt(kKind, r), target(std::move(target)), iter(std::move(iter)), body(std::move(body)),
        orelse(std::move(orelse)) {}
  ExprPtr target;
  ExprPtr iter;
  Block body;
  Block orelse;
  /// `for x in literal_unroll(t)`: the parser's loop over range(len($forN_0)) (parser.cpp, parse_for) that
  /// semantic analysis unrolls, one copy of the body per element, when t's elements differ in type.
  bool literal_unroll = false;
};

struct WhileStmt : Stmt {
  static constexpr StmtKind kKind = StmtKind::While;
  WhileStmt(SourceRange r, ExprPtr test, Block body, Block orelse)
      : Stmt(kKind, r), test(std::move(test)), body(std::move(body)), orelse(std::move(orelse)) {}
  ExprPtr test;
  Block body;
  Block orelse;
};

struct BreakStmt : Stmt {
  static constexpr StmtKind kKind = StmtKind::Break;
  explicit BreakStmt(SourceRange r) : Stmt(kKind, r) {}
};

struct ContinueStmt : Stmt {
  static constexpr StmtKind kKind = StmtKind::Continue;
  explicit ContinueStmt(SourceRange r) : Stmt(kKind, r) {}
};

struct ReturnStmt : Stmt {
  static constexpr StmtKind kKind = StmtKind::Return;
  ReturnStmt(SourceRange r, ExprPtr value) : Stmt(kKind, r), value(std::move(value)) {}
  ExprPtr value;  // may be null
};

struct PassStmt : Stmt {
  static constexpr StmtKind kKind = StmtKind::Pass;
  explicit PassStmt(SourceRange r) : Stmt(kKind, r) {}
};

/// `raise E` or `raise E(args)`: E an exception class, args constants (ir/sema_raise.cpp).
struct RaiseStmt : Stmt {
  static constexpr StmtKind kKind = StmtKind::Raise;
  RaiseStmt(SourceRange r, ExprPtr exc) : Stmt(kKind, r), exc(std::move(exc)) {}
  ExprPtr exc;  // may be null: a bare `raise`, which sema rejects
};

// ---------------------------------------------------------------------------------------------------------
// Functions and modules

struct Param {
  std::string name;
  SourceRange range;
  /// `b=1`: the default value, null if none. Semantic analysis checks it: a constant, and none in a kernel.
  ExprPtr default_value;
};

struct FunctionDef {
  std::string name;
  SourceRange range;       // the whole definition, decorators excluded
  SourceRange name_range;  // the function's name after `def`
  std::vector<Param> params;
  /// `*args` after the positional parameters: a device function's extra arguments, gathered into one tuple
  /// of that name (semantic analysis specializes on the tuple's type); none when the function has none.
  std::optional<Param> vararg;
  std::vector<ExprPtr> decorators;  // parsed as expressions: gpu.jit, cuda.jit(device=True), jit("sig")
  std::optional<std::string> docstring;
  Block body;
  /// `def` statements in the body (numba's inner functions), in source order, taken out of `body`: each is
  /// a device function the body calls or passes by its name, reading the enclosing function's constants
  /// (ir/sema_closure.cpp). `enclosing` is the function whose body held the `def` (null at module level).
  std::vector<std::unique_ptr<FunctionDef>> nested;
  const FunctionDef* enclosing = nullptr;
  SourceFilePtr file;
  /// A copy that semantic analysis made of a function to rewrite it (ir/sema_rewrite.cpp): the function it
  /// copied, which owns the `nested` functions (the copy has none of its own). Null for a parsed function.
  const FunctionDef* rewritten_from = nullptr;
  const FunctionDef& origin() const { return rewritten_from ? *rewritten_from : *this; }
  /// Syntax errors inside this function. They belong to the function, not the module, so that a file with
  /// one kernel outside the subset still compiles its other kernels; compiling this function reports them.
  Diagnostics errors;
};
using FunctionDefPtr = std::unique_ptr<FunctionDef>;

/// `import a.b as c` gives {module "a.b", alias "c"}; `from a import b as c` gives {module "a", name "b",
/// alias "c"}. alias is always filled in (with the bound name).
struct Import {
  std::string module;
  std::string name;  // empty for `import module`
  std::string alias;
  SourceRange range;
};

/// A module-level `NAME = expr`. value is null when the right-hand side is outside the kernel subset; such a
/// global is an error only if a kernel uses it.
struct GlobalAssign {
  std::string name;
  SourceRange range;
  ExprPtr value;
};

/// A parsed file. Top-level statements other than imports, simple assignments and function definitions
/// (classes, `if __name__ == "__main__":` blocks, host code in general) are skipped without error: the CLI
/// compiles kernels out of ordinary scripts.
struct Module {
  SourceFilePtr file;
  std::vector<Import> imports;
  std::vector<GlobalAssign> globals;
  std::vector<FunctionDefPtr> functions;
  /// Errors that prevent parsing the file at all (bad indentation at top level, an unterminated string).
  Diagnostics errors;

  const FunctionDef* find_function(const std::string& name) const;
};

}  // namespace gpujit
