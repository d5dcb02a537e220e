// The result of semantic analysis: a function's AST plus everything codegen needs to lower it without
// inferring anything itself.
//
// The AST stays immutable; what analysis learns is kept in side tables keyed by node address:
// - the type of every expression's value (expr_types),
// - what every name, attribute and callee denotes (symbols): a local variable, a compile-time constant, a
//   builtin from the builtins table, a device function, a module, a dtype,
// - the type operands are converted to before an operation (operand_types) for BinOp, UnaryOp, Compare (one
//   per comparison) and AugAssign, which may differ from the result type (a comparison yields bool),
// - the type of every local variable; one type per variable for the whole function.
// Codegen converts a value to its destination's type (a variable's, a parameter's, an operand type) with one
// cast helper; semantic analysis guarantees every such conversion is allowed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "frontend/ast.h"
#include "ir/types.h"

namespace gpujit {

struct TypedFunction;
struct BuiltinInfo;  // ir/builtins.h

/// A compile-time value: a captured global or a folded constant.
struct ConstValue {
  enum class Kind : uint8_t { Int, Float, Bool, None, Tuple, String };
  Kind kind = Kind::None;
  ScalarKind scalar = ScalarKind::Int64;  // the value's type for Int/Float/Bool (int64, float64, bool by default)
  int64_t i = 0;                          // Int (as two's complement bits for unsigned) and Bool
  double f = 0;                           // Float
  std::string s;                          // String
  std::vector<ConstValue> elements;       // Tuple

  Type type() const;
  static ConstValue of_int(int64_t v, ScalarKind k = ScalarKind::Int64);
  static ConstValue of_float(double v, ScalarKind k = ScalarKind::Float64);
  static ConstValue of_bool(bool v);
  static ConstValue of_tuple(std::vector<ConstValue> elts);
};

/// What a free name of a kernel denotes, as handed over by the Python shim or found by the CLI in the file.
struct GlobalValue {
  enum class Kind : uint8_t {
    Constant,        // a number or tuple of numbers
    Module,          // math, cmath, numpy, gpujit, numba, numba.cuda (module_name says which)
    DType,           // np.float32, gpu.int32, numba.float64 ...
    DeviceFunction,  // a @jit(device=True) function (or any jitted function called from a kernel)
    ConstArray,      // a NumPy array captured for const.array_like
  };
  Kind kind = Kind::Constant;
  ConstValue constant;                     // Constant
  std::string module_name;                 // Module: canonical name ("math", "numpy", "gpujit", "cmath")
  ScalarKind dtype = ScalarKind::Float64;  // DType; ConstArray's dtype
  const FunctionDef* function = nullptr;   // DeviceFunction (owned by the caller's Module)
  std::vector<int64_t> shape;              // ConstArray
  std::vector<uint8_t> bytes;              // ConstArray, C order
};

/// The free names a compile may resolve, by name.
using GlobalEnv = std::map<std::string, GlobalValue>;

/// What a Name, Attribute or a Call's callee denotes.
struct Symbol {
  enum class Kind : uint8_t {
    Local,           // a parameter or local variable; `name` is its name
    Constant,        // folds to `constant`
    Builtin,         // `builtin` (a function like gpu.grid, math.sqrt, a dtype cast, or a value like threadIdx.x)
    DeviceFunction,  // `callee` is the typed device function called
    Module,          // a module; only valid as the base of an Attribute
    DType,           // a dtype used as a cast or as an argument (shared.array(..., float32))
    BuiltinNamespace,  // gpu.threadIdx, gpu.shared, gpu.atomic...: only valid as the base of an Attribute
  };
  Kind kind = Kind::Local;
  std::string name;
  ConstValue constant;
  const BuiltinInfo* builtin = nullptr;
  const TypedFunction* callee = nullptr;
  ScalarKind dtype = ScalarKind::Float64;
};

struct TypedFunction {
  const FunctionDef* def = nullptr;
  std::string name;                 // the Python name
  std::string mangled_name;         // unique symbol name for this specialization (kernel entry names too)
  bool is_kernel = true;
  Signature signature;              // resolved parameter and return types
  std::map<std::string, Type> locals;  // every parameter and local variable, one type each

  std::unordered_map<const Expr*, Type> expr_types;
  std::unordered_map<const Expr*, Symbol> symbols;
  std::unordered_map<const Expr*, std::vector<Type>> operand_types;  // BinOp/UnaryOp: 1; Compare: one per op
  std::unordered_map<const Stmt*, Type> stmt_operand_types;          // AugAssign: the type the op runs in

  /// Device functions this one calls, in first-call order (codegen lowers them before their callers).
  std::vector<const TypedFunction*> callees;

  const Type& type_of(const Expr* e) const;          // throws InternalError if missing
  const Symbol* symbol_of(const Expr* e) const;      // nullptr if none recorded
};

/// The result of analysing one kernel and every device function it reaches. Owns the typed functions.
struct TypedProgram {
  std::vector<std::unique_ptr<TypedFunction>> functions;  // callees before callers; the kernel is last
  const TypedFunction* kernel() const { return functions.empty() ? nullptr : functions.back().get(); }
};

}  // namespace gpujit
