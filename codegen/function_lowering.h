// The state of lowering one module and one function at a time; private to codegen/.
//
// ModuleLowering holds what every function of the module shares: the LLVM module, the target, the mapping
// from our types to LLVM types, the LLVM function of each typed function and small helper functions made
// on demand (integer power). FunctionLowering lowers one function body; its methods are spread over files
// along the natural seams:
//   lower_stmt.cpp      statements and control flow (if, for over range, while, break/continue, else)
//   lower_expr.cpp      expressions: names, literals, tuples, calls, bool ops, comparisons, conditionals
//   arithmetic.cpp      the one cast() helper and Python's arithmetic (floor division, modulo, power, shifts)
//   array_access.cpp    the array representation, indexing, views, attributes, shared and local arrays
//   builtin_lowering.cpp  builtins from ir/builtins.h (thread indices, barriers, math)
//   atomic_lowering.cpp   cuda.atomic.*: atomicrmw, cmpxchg and CAS loops
//   intrinsic_lowering.cpp  cuda.popc/brev/clz/ffs/fma/cbrt/selp and print()
//   warp_lowering.cpp     shfl/vote/match_*_sync, activemask, lanemask_lt, cg.this_grid().sync()
//   complex_lowering.cpp  complex64/complex128 arithmetic, complex(), .real/.imag, cmath
//   datetime_lowering.cpp datetime64/timedelta64: unit conversions, arithmetic and comparisons with NaT
//   random_lowering.cpp   gpu.random's xoroshiro128+ draws
//   bounds_check.cpp      debug=True: array index checks and the targets' index_error
//
// Value representation: a scalar is an LLVM scalar (bool is i1; in array memory it is a byte), a tuple is
// a literal struct of its elements, None is the empty struct, a record is the generic address of its bytes
// (numba's reference semantics: `r = a[i]; r.x = 1` writes a[i]), and an array is the struct
// { ptr data, [ndim x i64] shape, [ndim x i64] strides-in-bytes }. Every pointer is generic (address space
// 0); targets recover specific address spaces by inference. Locals live in entry-block allocas, zeroed at
// entry so that no path reads an undefined value; mem2reg and SROA turn them into SSA values.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "codegen/artifact.h"
#include "codegen/debug_info.h"
#include "codegen/target.h"
#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "ir/builtins.h"
#include "ir/record_type.h"
#include "ir/typed_function.h"

namespace llvm {
}  // namespace llvm

namespace gpujit {

enum class Bf16Rounding : uint8_t;  // ir/bf16_functions.h

struct BuiltinInfo;

class ModuleLowering {
 public:
  ModuleLowering(const TypedProgram& program, const GlobalEnv& globals, Target& target, llvm::Module& module,
                 bool fastmath, Diagnostics& diags, bool bounds_check = false);
  ~ModuleLowering();

  llvm::Module& module() { return module_; }
  llvm::LLVMContext& ctx() { return module_.getContext(); }
  Target& target() { return target_; }
  const GlobalEnv& globals() const { return globals_; }
  Diagnostics& diags() { return diags_; }
  bool fastmath() const { return fastmath_; }
  /// Array indices are checked against their axes (CompileOptions::debug).
  bool bounds_check() const { return bounds_check_; }
  const TypedProgram& program() const { return program_; }

  /// The LLVM type of a value of type `t` (see the representation above).
  llvm::Type* llvm_type(const Type& t);
  /// The LLVM type of a scalar stored in array memory (bool is a byte there).
  llvm::Type* memory_type(ScalarKind k);
  /// The LLVM type of one element of an array of `element` in memory: memory_type() of a scalar, the
  /// record's bytes ([size x i8]) for a record.
  llvm::Type* element_memory_type(const Type& element);
  llvm::StructType* array_struct_type(unsigned ndim);

  /// The LLVM function of a device function (declared on first request).
  llvm::Function* device_function(const TypedFunction& fn);

  /// iN @gpujit.ipow.iN(iN base, iN exp): Python's integer power with numba's rules for negative
  /// exponents; made once per module and type, always inlined.
  llvm::Function* int_pow_function(unsigned bits, bool is_signed);

  /// Line information (CompileOptions::lineinfo): starts the module's debug info, a compile unit for the
  /// kernel's file that asks for `.file`/`.loc` directives only (DebugDirectivesOnly, as nvcc -lineinfo);
  /// with `dwarf` (CompileOptions::debug_info), line tables with a .debug_info section (LineTablesOnly).
  void enable_line_info(const FunctionDef& kernel, bool dwarf);
  /// Gives `fn` a DISubprogram for `typed` when line information is on; its statements then carry
  /// DILocations (FunctionLowering::lower_stmt). No-op otherwise.
  void attach_line_info(llvm::Function& fn, const TypedFunction& typed);
  /// The module's debug info with variables (debug=True), or null: then no variable is described.
  DebugInfo* variable_info() { return debug_ && debug_->full() ? debug_.get() : nullptr; }
  /// Resolves the debug info's forward references; call once every function is lowered.
  void finish_line_info();

 private:
  const TypedProgram& program_;
  const GlobalEnv& globals_;
  Target& target_;
  llvm::Module& module_;
  bool fastmath_;
  bool bounds_check_;
  Diagnostics& diags_;
  std::map<const TypedFunction*, llvm::Function*> functions_;
  std::map<std::pair<unsigned, bool>, llvm::Function*> int_pow_;
  std::unique_ptr<DebugInfo> debug_;  // set when line information is on (codegen/debug_info.h)
};

/// The parts of an array value, unpacked from its struct.
struct ArrayParts {
  llvm::Value* data = nullptr;        // generic pointer to element [0, 0, ...]
  std::vector<llvm::Value*> shape;    // i64 each
  std::vector<llvm::Value*> strides;  // i64 bytes each
};

/// A place a value can be stored to: a local variable or an array element.
struct LValue {
  llvm::Value* ptr = nullptr;
  Type type;                   // the value type stored there (the variable's type, the array dtype, a field's)
  bool array_element = false;  // memory uses memory_type(): bools are bytes, records their bytes
  unsigned align = 0;          // array_element: the known alignment (0: the element's natural one)
  const RecordField* field = nullptr;  // a record field's place: a sub-array field's shape is here
};

/// A C-layout array value over `data` with a constant shape (local, shared, constant arrays, sub-array fields).
ArrayParts constant_shape_parts(llvm::IRBuilder<>& b, llvm::Value* data, const std::vector<int64_t>& shape,
                                unsigned itemsize);

/// A String constant as the CharSeq of its own length (text_lowering.cpp).
llvm::Constant* charseq_constant(llvm::LLVMContext& ctx, const ConstValue& c);

class FunctionLowering {
 public:
  FunctionLowering(ModuleLowering& m, const TypedFunction& fn, llvm::Function* llvm_fn);

  /// Lowers the body of a device function whose LLVM parameters are the typed parameters one to one.
  void lower_device_function();
  /// Lowers a kernel: `llvm_fn` takes the flattened array ABI; the caller fills `params`.
  void lower_kernel(std::vector<ParamLayout>* params);

  // --- statements (lower_stmt.cpp)
  void lower_block(const Block& block);
  void lower_stmt(const Stmt& s);
  void lower_assign(const AssignStmt& s);
  void lower_aug_assign(const AugAssignStmt& s);
  void lower_if(const IfStmt& s);
  void lower_for(const ForStmt& s);
  void lower_for_range(const ForStmt& s, const CallExpr& range);
  void lower_while(const WhileStmt& s);
  void lower_return(const ReturnStmt& s);
  void lower_raise(const RaiseStmt& s);  // codegen/bounds_check.cpp
  /// Debug mode (bounds checks on): raises ZeroDivisionError where `divisor` of a /, // or % in type `t` is
  /// zero, as Python does (numba's debug=True uses Python's error model). Nothing otherwise, nor for a fastmath
  /// float32 true division (numba's is the unchecked fast divide).
  void check_division(BinOpKind op, llvm::Value* divisor, const Type& t, const SourceRange& at);
  /// Stores `value` of type `from` into an assignment target (a name, a subscript or a tuple of targets).
  void assign_to(const Expr& target, llvm::Value* value, const Type& from);
  void finish_function();

  // --- expressions (lower_expr.cpp)
  /// The value of `e`, of type type_of(e).
  llvm::Value* lower_expr(const Expr& e);
  /// The value of `e` converted to `to`.
  llvm::Value* lower_expr_as(const Expr& e, const Type& to);
  llvm::Value* lower_name(const NameExpr& e);
  llvm::Value* lower_constant(const ConstValue& c, const Type& t);
  llvm::Value* lower_tuple(const TupleExpr& e);
  llvm::Value* lower_call(const CallExpr& e);
  llvm::Value* lower_device_call(const CallExpr& e, const TypedFunction& callee);
  /// A call of `callee` with `args` bound to its parameters, giving `e`'s type.
  /// A call with `*t` arguments or of a callee that takes `*args`: arguments bound by position.
  llvm::Value* call_with_star_args(const CallExpr& e, const TypedFunction& callee);
  llvm::Value* call_device_function(const Expr& e, const std::vector<const Expr*>& args,
                                    const TypedFunction& callee);
  /// A call of a declare_device function (codegen/extern_lowering.cpp).
  llvm::Value* lower_extern_call(const CallExpr& e, const ExternFunction& callee);
  llvm::Value* lower_attribute(const AttributeExpr& e);
  llvm::Value* lower_subscript(const SubscriptExpr& e);
  llvm::Value* lower_bool_op(const BoolOpExpr& e);
  llvm::Value* lower_compare(const CompareExpr& e);
  llvm::Value* lower_if_exp(const IfExpExpr& e);
  llvm::Value* lower_unary(const UnaryOpExpr& e);
  llvm::Value* lower_binary(const BinOpExpr& e);
  /// Arguments of a call bound to parameter names: positional first, then keywords by name. Missing
  /// trailing ones are null.
  std::vector<const Expr*> bind_arguments(const CallExpr& e, const std::vector<std::string>& names);
  /// Folds an expression analysis proved constant (shapes of shared/local arrays, tuple indices).
  std::optional<ConstValue> const_eval(const Expr& e) const;

  // --- arithmetic (arithmetic.cpp)
  /// The one conversion helper: every conversion between types that analysis allows.
  llvm::Value* cast(llvm::Value* v, const Type& from, const Type& to);
  llvm::Value* truthy(llvm::Value* v, const Type& t);
  /// op applied to two values already of type `t`; the result has type `t`.
  llvm::Value* binary_op(BinOpKind op, llvm::Value* a, llvm::Value* b, const Type& t);
  llvm::Value* compare_op(CmpOpKind op, llvm::Value* a, llvm::Value* b, const Type& t);
  llvm::Value* unary_op(UnaryOpKind op, llvm::Value* v, const Type& t);
  llvm::Value* int_floor_div_mod(llvm::Value* a, llvm::Value* b, bool is_signed, bool want_mod);
  llvm::Value* float_floor_div_mod(llvm::Value* a, llvm::Value* b, ScalarKind k, bool want_mod);
  llvm::Value* int_pow(llvm::Value* a, llvm::Value* b, bool is_signed);
  llvm::Value* float_pow(llvm::Value* a, llvm::Value* b, ScalarKind k);
  llvm::Value* shift(llvm::Value* a, llvm::Value* amount, bool left, bool is_signed);
  /// A libdevice-named math function for float kind `k` (float16 computes in float32).
  llvm::Value* call_math(const std::string& f32_name, const std::string& f64_name, ScalarKind k,
                         llvm::ArrayRef<llvm::Value*> args);

  /// A parameter attribute: the `bits`-wide value, read as unsigned, lies in [lo, hi); hi may be 2**(bits-1),
  /// which is no signed `bits`-wide value (an index32 extent's bound).
  llvm::Attribute range_attribute(uint64_t lo, uint64_t hi, unsigned bits);

  // --- arrays (array_access.cpp)
  ArrayParts unpack_array(llvm::Value* array, unsigned ndim);
  llvm::Value* pack_array(const ArrayParts& parts);
  /// Integer index value (any integer type) to a `bits`-wide integer (64, or 32 for narrow_access()
  /// arrays, where an in-bounds index fits), wrapping negative values by `extent` (Python's a[-1]) when the
  /// index type is signed and analysis did not find the index never negative (ir/index_signs.h).
  llvm::Value* wrap_index(llvm::Value* index, const Type& index_type, llvm::Value* extent, unsigned bits = 64,
                          bool known_non_negative = false);
  /// wrap_index(), then, with bounds checks on, a check that the result lies in [0, extent) whose failure
  /// calls Target::index_error naming axis `axis` and the source line of `at` (codegen/bounds_check.cpp).
  llvm::Value* checked_index(llvm::Value* index, const Type& index_type, llvm::Value* extent, unsigned axis,
                             const Expr& at);
  /// The address of element `indices` (already wrapped, one per dimension, all i64 or all i32) of an array;
  /// i32 indices make the offset arithmetic 32-bit.
  llvm::Value* element_pointer(const ArrayParts& a, const Type& array_type,
                               const std::vector<llvm::Value*>& idx);
  /// Whether accesses to arrays of type `t` are indexed in 32 bits.
  bool narrow_access(const Type& t) const;
  /// Lowers the index of `a[index]`: the element's address if it names one element, else null and a view.
  struct IndexResult {
    llvm::Value* element_ptr = nullptr;
    llvm::Value* view = nullptr;
  };
  /// The address of p[index] for a pointer p (numba's CPointer): no extent, so no wrap and no bounds check.
  llvm::Value* pointer_element(llvm::Value* ptr, const Type& pointer_type, const Expr& index);
  IndexResult index_array(llvm::Value* array, const Type& array_type, const Expr& index,
                          const Type& result_type);
  /// Loads or stores a scalar in array memory, `align` bytes aligned (0: its natural alignment).
  llvm::Value* load_element(llvm::Value* ptr, ScalarKind dtype, unsigned align = 0);
  void store_element(llvm::Value* ptr, llvm::Value* v, ScalarKind dtype, unsigned align = 0);
  /// The value an array-memory place holds: a scalar is loaded, a record is its address, a sub-array
  /// field is an array over it.
  llvm::Value* load_place(const LValue& place);
  /// Stores `v`, already of place.type, into an array-memory place: a record's bytes are copied.
  void store_place(const LValue& place, llvm::Value* v);
  llvm::Value* array_attribute(llvm::Value* array, const Type& array_type, const std::string& attr,
                               const Type& result_type);
  llvm::Value* array_size(const ArrayParts& a);
  /// shared.array / local.array: a fresh C-layout array of the given shape, its base aligned to at least
  /// `alignment` bytes (their alignment= argument; 0 keeps the default of 16).
  llvm::Value* make_shared_array(const std::vector<int64_t>& shape, const Type& element, const Type& result,
                                 unsigned alignment = 0);
  llvm::Value* make_local_array(const std::vector<int64_t>& shape, const Type& element, const Type& result,
                                unsigned alignment = 0);
  /// The captured global array `name` in constant memory (one global per module and name).
  llvm::Value* make_const_array(const std::string& name, const GlobalValue& g, const Type& result);
  llvm::Value* make_device_array_global(const GlobalValue& g, const Type& result);
  std::vector<int64_t> const_shape(const Expr& shape_expr);
  /// `ary.name` / `ary['name']` of an array of records: the field of every element as a view (its data
  /// pointer offset by the field's offset, the array's byte strides, then a sub-array field's own axes).
  llvm::Value* record_field_view(llvm::Value* array, const Type& array_type, const std::string& name);
  /// The LValue of `a[index]` where it names one element.
  LValue subscript_lvalue(const SubscriptExpr& e);
  /// `a[slices] = value`: fills the view with a scalar, or copies an array of its rank into it element by
  /// element (over the extents the two share).
  void store_to_view(const SubscriptExpr& e, llvm::Value* value, const Type& from);
  /// As store_to_view, into the array value `view` of type `view_type`.
  /// Emits `body` once per index of the box `extents` (i64 each), the last axis innermost.
  void for_each_index(const std::vector<llvm::Value*>& extents,
                      const std::function<void(const std::vector<llvm::Value*>&)>& body);
  /// A NumPy ufunc over arrays (ir/ufuncs.h): a loop over the output's elements; returns the output array.
  llvm::Value* lower_ufunc(const UfuncCall& c);
  /// A whole-array reduction (np.sum(a), a.max()): a loop over every element; returns the scalar result.
  llvm::Value* lower_reduction(const ReductionCall& c);
  llvm::Value* lower_array_method(const ArrayMethodCall& c, const Type& result);
  llvm::Value* ufunc_element(const UfuncCall& c, const std::vector<llvm::Value*>& values,
                             const std::vector<Type>& types);
  void store_into_view(llvm::Value* view, const Type& view_type, llvm::Value* value, const Type& from);

  // --- records (record_access.cpp)
  /// The place of field `name` of the record `base` evaluates to (`base.name`, `base['name']`).
  LValue field_lvalue(const Expr& base, const std::string& name);
  /// The field `rec[index]` names: a string literal, or a constant position (analysis checked both).
  std::string field_name(const SubscriptExpr& e);
  /// Stores into `rec.name` / `rec['name']`: a scalar or record field, or a sub-array field (as a view).
  void store_field(const Expr& base, const std::string& name, llvm::Value* value, const Type& from);

  // --- builtins (builtin_lowering.cpp)
  llvm::Value* lower_builtin_call(const BuiltinInfo& b, const CallExpr& e);
  llvm::Value* lower_builtin_value(const BuiltinInfo& b, const Expr& e);
  /// cuda.atomic.* (atomic_lowering.cpp): `args` bound to (ary, idx, val) or (ary, idx, old, val).
  llvm::Value* lower_atomic(const BuiltinInfo& b, const CallExpr& e, const std::vector<const Expr*>& args);
  /// popc, brev, clz, ffs, fma, cbrt, selp, nanosleep, i.bit_count() (intrinsic_lowering.cpp).
  llvm::Value* lower_intrinsic(const BuiltinInfo& b, const CallExpr& e);
  /// cuda.ldcs(ary, idx), cuda.stcg(ary, idx, val) ... (cache_hint_lowering.cpp).
  llvm::Value* lower_cache_hint(const BuiltinInfo& b, const CallExpr& e);
  /// print(...) (intrinsic_lowering.cpp).
  llvm::Value* lower_print(const CallExpr& e);
  /// divmod(a, b), tuple(t), sum(t[, start]), min(t) and max(t) of a tuple (python_builtin_lowering.cpp).
  llvm::Value* lower_python_builtin(const BuiltinInfo& b, const CallExpr& e);

  // --- warp operations and cooperative groups (warp_lowering.cpp)
  llvm::Value* lower_warp(const BuiltinInfo& b, const CallExpr& e);
  llvm::Value* lower_grid_group(const BuiltinInfo& b, const CallExpr& e);

  // --- complex numbers (complex_lowering.cpp): a complex value is the struct {re, im} of its float type.
  llvm::Value* complex_cast(llvm::Value* v, const Type& from, const Type& to);
  llvm::Value* complex_truthy(llvm::Value* v);
  llvm::Value* complex_binary(BinOpKind op, llvm::Value* a, llvm::Value* b, const Type& t);
  llvm::Value* complex_compare(CmpOpKind op, llvm::Value* a, llvm::Value* b, const Type& t);
  llvm::Value* complex_unary(UnaryOpKind op, llvm::Value* v, const Type& t);
  /// The cmath function (or abs) `id` of complex values `args` of type `ct`, converted to `result`.
  llvm::Value* cmath_value(BuiltinId id, const std::vector<llvm::Value*>& args, const Type& ct,
                           const Type& result);
  /// complex(), z.conjugate(), abs() of a complex number, cmath.*.
  llvm::Value* lower_complex(const BuiltinInfo& b, const CallExpr& e);
  /// z.real, z.imag.
  llvm::Value* lower_number_attribute(const BuiltinInfo& b, const Expr& e);

  // --- bfloat16 (bf16_lowering.cpp): LLVM's bfloat; NVPTX has the instructions on sm_80+ (more on sm_90),
  // the CPU backend computes in float32 and rounds through the conversions codegen/host_jit.cpp binds.
  /// Conversions to and from bfloat16 (cast() comes here when either side is bfloat16).
  llvm::Value* bfloat16_cast(llvm::Value* v, const Type& from, const Type& to);
  /// A float32 value rounded to bfloat16 in `mode`, from its bits (the same code on every target).
  llvm::Value* bfloat16_from_float(llvm::Value* f32, Bf16Rounding mode);
  /// An integer value (of any width, `is_signed` as its type) rounded to bfloat16 in `mode`, exactly.
  llvm::Value* bfloat16_from_int(llvm::Value* v, bool is_signed, Bf16Rounding mode);
  /// A bfloat16 widened to float32 (exact), and a float32 or float64 rounded to bfloat16 (nearest even).
  llvm::Value* bfloat16_widen(llvm::Value* v);
  llvm::Value* bfloat16_narrow(llvm::Value* v);
  /// + - * / and comparisons of two bfloat16 values.
  llvm::Value* bfloat16_binary(BinOpKind op, llvm::Value* a, llvm::Value* b);
  llvm::Value* bfloat16_compare(llvm::CmpInst::Predicate p, llvm::Value* a, llvm::Value* b);
  /// cuda.bf16.*, and math.sqrt ... of a bfloat16 (analysis resolved those to bf16 rows).
  llvm::Value* lower_bf16(const BuiltinInfo& b, const CallExpr& e);

  // --- datetime64 and timedelta64 (datetime_lowering.cpp): i64 values, NaT is INT64_MIN (ir/datetime_types.h).
  /// Conversions between units (NaT stays NaT; a datetime of years or months becomes the day it starts on)
  /// and to int64/uint64 (the count of units); cast() comes here when either side is one of them.
  llvm::Value* datetime_cast(llvm::Value* v, const Type& from, const Type& to);
  /// `a op b` with a and b already converted to the operation's operand types `ta` and `tb`
  /// (ir/datetime_rules.h), giving a value of type `result`.
  llvm::Value* datetime_binary(BinOpKind op, llvm::Value* a, llvm::Value* b, const Type& ta, const Type& tb,
                               const Type& result);
  /// A comparison of two values of one datetime64 or timedelta64 type: false with NaT, except != (true).
  llvm::Value* datetime_compare(CmpOpKind op, llvm::Value* a, llvm::Value* b);

  // --- fixed-width strings and Enum members (text_lowering.cpp): a CharSeq is an LLVM array of its code
  // units (i8 or i32, ir/charseq.h); an Enum member is its value (ir/enum_type.h).
  /// A CharSeq converted to another length of its kind: truncated, or padded with NULs.
  llvm::Value* charseq_cast(llvm::Value* v, const Type& from, const Type& to);
  /// == or != of two CharSeqs of type `t` (the operand type analysis chose: both are converted to it).
  llvm::Value* charseq_compare(CmpOpKind op, llvm::Value* a, llvm::Value* b, const Type& t);
  /// len(s): NumPy's, the position after the last non-NUL code unit.
  llvm::Value* charseq_length(llvm::Value* v, const Type& t);
  /// `lhs op rhs` of one comparison, each converted to `operand` first; an `operand` of void is a comparison
  /// the types decide (ir/enum_type.h): `is` and == give false, `is not` and != true, and both sides are
  /// still evaluated by the caller.
  llvm::Value* compare_values(CmpOpKind op, llvm::Value* lhs, const Type& lhs_type, llvm::Value* rhs,
                              const Type& rhs_type, const Type& operand);

  // --- CUDA vector types and numba's Dim3 (vector_lowering.cpp): LLVM vectors <lanes x base>.
  /// cuda.float32x4(...): its arguments' lanes inserted in order.
  llvm::Value* lower_vector_ctor(const CallExpr& e);
  /// v.x ... v.w of a vector or Dim3 value.
  llvm::Value* lower_vector_lane(const AttributeExpr& e);
  /// cuda.threadIdx (blockIdx, blockDim, gridDim) read whole: its three registers.
  llvm::Value* lower_dim3(const std::string& name_space);

  // --- gpu.random (random_lowering.cpp)
  llvm::Value* lower_random(const BuiltinInfo& b, const CallExpr& e);

  // --- helpers
  const Type& type_of(const Expr& e) const { return fn_.type_of(&e); }
  const Symbol* symbol_of(const Expr& e) const { return fn_.symbol_of(&e); }
  llvm::Type* llvm_type(const Type& t) { return m_.llvm_type(t); }
  llvm::AllocaInst* entry_alloca(llvm::Type* t, const std::string& name);
  /// debug=True: describes the Python variable `name` held in `slot` (a parameter gets its argument number).
  void declare_variable(DebugInfo& di, llvm::AllocaInst* slot, llvm::Instruction* after, const std::string& name,
                        const Type& type);
  /// round(x, ndigits) of a float x (codegen/builtin_lowering.cpp).
  llvm::Value* round_ndigits(llvm::Value* x, llvm::Value* ndigits);
  llvm::Value* local_slot(const std::string& name);
  /// A fresh block in this function (not yet inserted at a position; appended).
  llvm::BasicBlock* new_block(const std::string& name);
  bool block_terminated() const { return b_.GetInsertBlock()->getTerminator() != nullptr; }
  /// Reports a construct analysis accepted but lowering does not support; returns a placeholder value.
  llvm::Value* unsupported(const Expr& e, const std::string& message);
  [[noreturn]] void internal(const std::string& message) const;
  llvm::Value* i64(int64_t v) { return b_.getInt64(static_cast<uint64_t>(v)); }

  ModuleLowering& m_;
  const TypedFunction& fn_;
  llvm::Function* llvm_fn_;
  llvm::IRBuilder<> b_;
  llvm::BasicBlock* alloca_block_ = nullptr;
  std::map<std::string, llvm::AllocaInst*> locals_;

  struct LoopTargets {
    llvm::BasicBlock* break_to;
    llvm::BasicBlock* continue_to;
  };
  std::vector<LoopTargets> loops_;
};

}  // namespace gpujit
