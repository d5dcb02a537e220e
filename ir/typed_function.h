// The result of semantic analysis: a function's AST plus everything codegen needs to lower it without
// inferring anything itself.
//
// The AST stays immutable; what analysis learns is kept in side tables keyed by node address:
// - the type of every expression's value (expr_types),
// - what every name, attribute and callee denotes (symbols): a local variable, a compile-time constant, a
//   builtin from the builtins table, a device function, a module, a dtype,
// - the type operands are converted to before an operation (operand_types) for BinOp, UnaryOp, Compare (one
//   per comparison) and AugAssign, which may differ from the result type (a comparison yields bool); for a
//   Call, the type each positional argument is converted to; for an array Subscript that names one element,
//   the index type of each axis (always int64: codegen wraps negative indices; a view has no entry),
// - the value of every expression that folds to a compile-time constant (constants), and the constant shape
//   of every shared.array/local.array call (array_shapes) and the alignment= of those that ask for one
//   (array_alignments),
// - the type of every local variable; one type per variable for the whole function.
//
// "Every expression" means every expression that denotes a value. Names and attributes that denote a
// module, a dtype, a builtin namespace, a builtin function or a device function (a call's callee, the dtype
// argument of shared.array) have a symbol and no entry in expr_types. A string literal statement (a
// docstring-like comment) has neither.
// Codegen converts a value to its destination's type (a variable's, a parameter's, an operand type) with one
// cast helper; semantic analysis guarantees every such conversion is allowed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "frontend/ast.h"
#include "ir/extern_function.h"
#include "ir/types.h"

namespace gpujit {

struct TypedFunction;
struct BuiltinInfo;  // ir/builtins.h

/// A compile-time value: a captured global or a folded constant.
struct ConstValue {
  enum class Kind : uint8_t { Int, Float, Bool, None, Tuple, String };
  Kind kind = Kind::None;
  /// The value's type for Int/Float/Bool (int64, float64, bool by default); String: uint8 for bytes (b'...'),
  /// anything else for str.
  ScalarKind scalar = ScalarKind::Int64;
  int64_t i = 0;                          // Int (as two's complement bits for unsigned) and Bool
  double f = 0;                           // Float
  std::string s;                          // String: str as UTF-8, bytes as they are
  std::vector<ConstValue> elements;       // Tuple
  /// An Enum member (ir/enum_type.h): its class; the rest is the member's value. Folding an operation on it
  /// gives a plain value.
  const EnumType* enum_class = nullptr;

  /// The value's type: a String is a CharSeq of its length, an Enum member its class's member type.
  Type type() const;
  bool is_bytes() const { return kind == Kind::String && scalar == ScalarKind::UInt8; }
  /// Python's repr of the value: 1, 2.5, 1e-05, True, None, (1, 2). Floats print the shortest text that
  /// reads back to the same double.
  std::string str() const;
  static ConstValue of_int(int64_t v, ScalarKind k = ScalarKind::Int64);
  static ConstValue of_float(double v, ScalarKind k = ScalarKind::Float64);
  static ConstValue of_bool(bool v);
  static ConstValue of_tuple(std::vector<ConstValue> elts);
  /// A str (UTF-8) or, with `bytes`, a bytes constant.
  static ConstValue of_string(std::string text, bool bytes);
};

/// What a free name of a kernel denotes, as handed over by the Python shim or found by the CLI in the file.
struct GlobalValue {
  enum class Kind : uint8_t {
    Constant,        // a number or tuple of numbers
    Module,          // math, cmath, numpy, gpujit, numba, numba.cuda (module_name says which)
    DType,           // np.float32, gpu.int32, numba.float64 ...
    DeviceFunction,  // a @jit(device=True) function (or any jitted function called from a kernel)
    ConstArray,      // a NumPy array captured for const.array_like
    DeviceArray,     // a device array (anything with __cuda_array_interface__) captured by its address
    ModuleMember,  // `from math import sqrt`: the attribute `member` of module `module_name`, resolved on use
    Unsupported,   // a module-level name whose value is outside the kernel subset; `reason` says why
    Constants,     // a class whose attributes are compile-time constants (an IntEnum): `members`
    ArrayTuple,    // a tuple of NumPy arrays: each is the ConstArray global named in `element_globals`
    ExceptionClass,  // an exception class a kernel may raise; `member` is the reference the Python shim
                     // resolves it by (python/gpujit/_exceptions.py)
    Overloaded,      // a function with @overload implementations: each call asks the compile's
                     // OverloadResolver (ir/overloads.h) with its argument types; `member` is the key
    ExternFunction,  // a function declared with declare_device, defined by linked code: `extern_fn`
  };
  Kind kind = Kind::Constant;
  ConstValue constant;                     // Constant
  std::string module_name;                 // Module: canonical name ("math", "numpy", "gpujit", "cmath")
  ScalarKind dtype = ScalarKind::Float64;  // DType; ConstArray's dtype
  const RecordType* record = nullptr;      // DType, ConstArray, DeviceArray: a structured dtype (then not `dtype`)
  const FunctionDef* function = nullptr;   // DeviceFunction (owned by the caller's Module)
  /// DeviceFunction: its explicit signatures (jit(sigs, device=True)); a call converts its arguments to the
  /// best of them, as numba does, instead of specializing on their types, and the result to its return type
  /// (void: none declared, the callee's own).
  std::vector<Signature> signatures;
  std::vector<int64_t> shape;              // ConstArray, DeviceArray
  std::vector<uint8_t> bytes;              // ConstArray, C order
  std::vector<int64_t> strides;            // DeviceArray: bytes between elements, per axis
  uint64_t address = 0;                    // DeviceArray: the data pointer, valid in this process only
  std::string member;                      // ModuleMember: the attribute name ("sqrt", "float32", "cuda");
                                           // ExceptionClass: its reference; Overloaded: the resolver's key
  std::string reason;                      // Unsupported: "its value is a call to 'np.zeros'"
  std::map<std::string, ConstValue> members;  // Constants: attribute name -> value
  std::vector<std::string> element_globals;   // ArrayTuple: "name[0]", "name[1]" ... (not Python names);
                                              // Constants of a user's module: its attributes, each the global
                                              // "name.attribute"
  /// DeviceFunction: jit(inline='always'/True, or a cost model that said yes): gpujit inlines its calls
  /// before LLVM's optimizer sees the module (numba inlines at its IR level). forceinline=True: its LLVM
  /// definition gets `alwaysinline`, and LLVM's inliner does the rest.
  bool inline_always = false;
  bool force_inline = false;
  std::shared_ptr<const ExternFunction> extern_fn;  // ExternFunction (ir/extern_function.h)

  static GlobalValue of_constant(ConstValue c);
  static GlobalValue of_module(std::string canonical_name);
  static GlobalValue of_dtype(ScalarKind k);
  static GlobalValue of_function(const FunctionDef* f);
  static GlobalValue of_member(std::string module, std::string member);
  static GlobalValue of_unsupported(std::string reason);
  static GlobalValue of_constants(std::map<std::string, ConstValue> members);
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
                       // `name` is the namespace: "threadIdx", "blockIdx", "blockDim", "gridDim", "shared",
                       // "local", "const", "atomic"
    ConstArray,        // a captured global NumPy array (GlobalValue::ConstArray) named `name`: its value is
                       // that array in constant memory
    ExternFunction,    // `extern_fn`, a declare_device function: a call of linked code
  };
  Kind kind = Kind::Local;
  std::string name;
  ConstValue constant;
  const BuiltinInfo* builtin = nullptr;
  const TypedFunction* callee = nullptr;
  ScalarKind dtype = ScalarKind::Float64;
  const ExternFunction* extern_fn = nullptr;  // ExternFunction
};

struct UfuncInfo;  // ir/ufuncs.h

/// A NumPy ufunc applied elementwise over arrays (ir/ufuncs.h): its inputs, the output array, and the types
/// one element is computed in.
struct UfuncCall {
  const UfuncInfo* ufunc = nullptr;
  std::vector<const Expr*> inputs;  // arrays or scalars
  const Expr* out = nullptr;        // the output array (positional or out=)
  ScalarKind operand = ScalarKind::Float64;
  ScalarKind result = ScalarKind::Float64;
  bool mixed_sign_compare = false;  // an exact comparison of a signed and an unsigned 64-bit integer
};

struct ArrayReduction;  // ir/ufuncs.h

/// A reduction of a whole array to one value (np.sum(a), a.max()): codegen lowers it as a loop.
struct ReductionCall {
  const ArrayReduction* reduction = nullptr;
  const Expr* array = nullptr;  // the argument, or the receiver of a method
  ScalarKind accumulate = ScalarKind::Float64;
  ScalarKind result = ScalarKind::Float64;
};

/// A view of an array under a new shape or dtype (a.reshape(shape), a.view(dtype)), or an array over a pointer
/// (carray(ptr, shape), farray): the same memory, no copy. Copy: a.copy() of an array whose shape is known at
/// compile time (a captured global array), into the calling thread's local memory.
struct ArrayMethodCall {
  enum class Kind { Reshape, View, CArray, FArray, Copy };
  Kind kind = Kind::Reshape;
  const Expr* array = nullptr;           // the receiver; CArray/FArray: the pointer
  std::vector<const Expr*> shape;        // Reshape: one int or tuple of ints, or several ints; CArray: one
  std::vector<int64_t> copy_shape;       // Copy: the receiver's shape
};

struct TypedFunction {
  const FunctionDef* def = nullptr;
  /// When analysis rewrote the function (ir/sema_rewrite.cpp), the copies it made, the last being `def`: the
  /// side tables are keyed by their nodes, so they live as long as this.
  std::vector<std::shared_ptr<const FunctionDef>> rewritten_defs;
  std::string name;                 // the Python name
  std::string mangled_name;         // unique symbol name for this specialization (kernel entry names too)
  bool is_kernel = true;
  Signature signature;              // resolved parameter and return types
  /// Every parameter and local variable, one type each. A scalar parameter that is also assigned a wider
  /// type (x = x * 0.5 with x an int64 argument) has that wider type here; codegen converts the argument
  /// from signature.params[i] on entry.
  std::map<std::string, Type> locals;

  std::unordered_map<const Expr*, Type> expr_types;
  std::unordered_map<const Expr*, Symbol> symbols;
  /// BinOp/UnaryOp: 1 (a BinOp with a datetime64 or timedelta64 operand: 2, the left's and the right's,
  /// ir/datetime_rules.h); Compare: one per op; Call (builtin, cast or device function): one per positional
  /// argument that is a value; array Subscript naming one element: int64 per axis.
  std::unordered_map<const Expr*, std::vector<Type>> operand_types;
  std::unordered_map<const Stmt*, Type> stmt_operand_types;          // AugAssign: the type the op runs in
  /// AugAssign with a datetime64 or timedelta64 operand (ir/datetime_rules.h): the type its right operand
  /// converts to, as a BinOp's second operand type, and the operation's result (stmt_operand_types holds the
  /// target's operand type).
  struct MixedOperands {
    Type rhs;
    Type result;
  };
  std::unordered_map<const Stmt*, MixedOperands> stmt_mixed_operands;
  /// Expressions analysis folded to a compile-time value (literals, named constants, math.pi, arithmetic
  /// on constants, a.ndim, len of a tuple). Codegen may emit the value instead of lowering the expression.
  std::unordered_map<const Expr*, ConstValue> constants;
  /// The constant shape of each shared.array / local.array call, keyed by the CallExpr.
  std::unordered_map<const Expr*, std::vector<int64_t>> array_shapes;
  /// The alignment= of the shared.array / local.array calls that give one (a power of two, in bytes): the
  /// array's base is aligned to at least that many bytes.
  std::unordered_map<const Expr*, unsigned> array_alignments;

  /// The calls of NumPy ufuncs over arrays, keyed by the CallExpr; codegen lowers each as a loop.
  std::unordered_map<const Expr*, UfuncCall> ufunc_calls;
  /// The whole-array reductions, keyed by the CallExpr.
  std::unordered_map<const Expr*, ReductionCall> reduction_calls;
  /// a.reshape(...) and a.view(...), keyed by the CallExpr.
  std::unordered_map<const Expr*, ArrayMethodCall> array_method_calls;

  /// Each `raise` statement's description (ir/sema_raise.cpp): the text codegen hands the runtime when it runs.
  std::unordered_map<const Stmt*, std::string> raises;

  /// The integer local variables that never hold a negative value (ir/index_signs.h): an array index made of
  /// them gets no negative-index wrap.
  std::set<std::string> non_negative_locals;

  /// Device functions this one calls, in first-call order (codegen lowers them before their callers).
  std::vector<const TypedFunction*> callees;
  /// Calls and attributes that an @overload_method or @overload_attribute implementation types (ir/overloads.h):
  /// the receiver, passed as the implementation's first argument. Keyed by the CallExpr of `x.m(...)` or the
  /// AttributeExpr `x.a`.
  std::unordered_map<const Expr*, const Expr*> receivers;
  /// External functions (declare_device) this one calls, in first-call order: their code is linked.
  std::vector<const ExternFunction*> externs;

  const Type& type_of(const Expr* e) const;          // throws InternalError if missing
  const Symbol* symbol_of(const Expr* e) const;      // nullptr if none recorded
  const ConstValue* constant_of(const Expr* e) const;  // nullptr if not a compile-time constant
};

/// The description of a raise (ir/sema_raise.cpp): the class reference ("builtins.ValueError"), the function
/// and place, and the constant arguments, one line each, as python/gpujit/_exceptions.py reads it.
std::string raise_description(const std::string& reference, const std::string& function,
                              const std::string& file, unsigned line, const std::vector<ConstValue>& args);

/// The result of analysing one kernel and every device function it reaches. Owns the typed functions.
struct TypedProgram {
  std::vector<std::unique_ptr<TypedFunction>> functions;  // callees before callers; the kernel is last
  const TypedFunction* kernel() const { return functions.empty() ? nullptr : functions.back().get(); }
};

}  // namespace gpujit
