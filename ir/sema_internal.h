// The machinery of semantic analysis shared by sema.cpp (program, statements), sema_expr.cpp (expressions,
// names, attributes) and sema_call.cpp (calls and builtins); private to ir/.
//
// A FunctionAnalyzer analyses one specialization. Its walks run in one of two modes: Infer (silent; unknown
// types propagate as Unknown and variables widen) and Check (variable types are final; errors are reported
// and the TypedFunction tables filled). Every expression method returns an ExprResult saying what the
// expression denotes. Error means an error was reported for it (or, while inferring, would be): callers
// stay silent about it so one mistake gives one message.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "ir/charseq.h"
#include "ir/enum_type.h"
#include "ir/record_type.h"
#include "ir/builtins.h"
#include "ir/overloads.h"
#include "ir/type_rules.h"
#include "ir/typed_function.h"
#include "ir/ufuncs.h"

namespace gpujit {

struct Closure;

/// The names an assignment target binds, and the names a block binds anywhere, loops and branches included
/// (Python makes each local to the whole function); sema.cpp.
void collect_bound_names(const Expr& target, std::set<std::string>& out);
void collect_bound_names(const Block& block, std::set<std::string>& out);

/// What an expression denotes.
struct ExprResult {
  enum class What { Value, Module, DType, Namespace, Builtin, Device, Extern, Reduction, ArrayMethod, Overload, Unknown, Error };
  What what = What::Error;
  Type type;                               // Value (void for a call that returns nothing)
  std::optional<ConstValue> value;         // Value: a compile-time constant
  std::string module;                      // Module: canonical name; Namespace: "threadIdx", "shared" ...
  ScalarKind dtype = ScalarKind::Float64;  // DType
  const RecordType* record = nullptr;      // DType: a structured dtype (then not `dtype`)
  const BuiltinInfo* builtin = nullptr;    // Builtin (functions); also set for builtin values
  const FunctionDef* function = nullptr;   // Device
  const std::vector<Signature>* signatures = nullptr;  // Device: its explicit signatures, if any
  const Closure* closure = nullptr;        // Device: an inner function's view of its enclosing function
  const ExternFunction* extern_fn = nullptr;  // Extern: a declare_device function (ir/extern_function.h)
  const UfuncInfo* ufunc = nullptr;        // Builtin reached as numpy.NAME where NAME is a ufunc (ir/ufuncs.h)
  const ArrayReduction* reduction = nullptr;  // Reduction: np.sum (a function) or a.sum (a method, `method`)
  bool method = false;
  /// Overload: the resolver's key of an Overloaded global; with `method`, the method's name (the receiver
  /// is `type`, the receiver's expression `receiver`).
  std::string overload_key;
  const Expr* receiver = nullptr;
  /// A parameter's default value that a call leaves out (numba's Omitted): a compile-time argument.
  bool omitted = false;
  std::string array_method;  // ArrayMethod: "reshape", "view" or "copy", called on the receiver of the attribute
  /// Namespace of a class of constants (an IntEnum global): its members; null for builtin namespaces.
  const std::map<std::string, ConstValue>* members = nullptr;

  bool is_value() const { return what == What::Value; }
  bool ok() const { return what != What::Unknown && what != What::Error; }
  const ConstValue* constant() const { return value ? &*value : nullptr; }

  static ExprResult of_value(Type t) {
    ExprResult r;
    r.what = What::Value;
    r.type = std::move(t);
    return r;
  }
  static ExprResult of_const(ConstValue c) {
    ExprResult r = of_value(c.type());
    r.value = std::move(c);
    return r;
  }
  static ExprResult unknown() {
    ExprResult r;
    r.what = What::Unknown;
    return r;
  }
  static ExprResult error() { return ExprResult(); }
};

class ProgramAnalyzer;

/// What an inner function (a `def` inside a kernel or device function, FunctionDef::nested) sees of the
/// specialization of the function that defines it (ir/sema_closure.cpp): the names it may read, with their
/// compile-time values, and those it may not, with the reason. Interned by ProgramAnalyzer, so equal views
/// are one object and a specialization's key can name it by address.
struct Closure {
  const FunctionDef* scope = nullptr;          // the enclosing function; its `nested` are the siblings
  std::map<std::string, ExprResult> captured;  // constants, dtypes, functions
  std::map<std::string, std::string> refused;  // name -> why it cannot be read (numba's words first)
  std::string key;
};

/// The largest alignment= shared.array and local.array accept, in bytes.
constexpr int64_t kMaxArrayAlignment = 1024;

/// One specialization of a function: its typed function and the diagnostics its analysis produced. Those
/// diagnostics reach the user only if the specialization is used by the final program.
/// The rewrites of a function that semantic analysis asks for (ir/sema_rewrite.cpp).
struct Rewrites {
  /// `literal_unroll` loops over a tuple of mixed types, with the tuple's length: each is unrolled.
  std::map<const ForStmt*, size_t> loops;
  /// Calls of builtins with `*t` arguments: the argument index of each, with the tuple's length; each
  /// becomes t[0], t[1], ... (t is an expression without side effects, so evaluating it again is safe).
  std::map<const CallExpr*, std::map<size_t, size_t>> star_calls;
  bool empty() const { return loops.empty() && star_calls.empty(); }
};

struct Specialization {
  std::unique_ptr<TypedFunction> fn;
  Diagnostics diags;
  std::vector<Specialization*> callees;  // in first-call order
  /// What analysis found that it cannot type in place: the function is rewritten (ir/sema_rewrite.cpp) and
  /// analysed again.
  Rewrites rewrites;
  bool done = false;
  bool committed = false;
};

class ProgramAnalyzer {
 public:
  ProgramAnalyzer(const GlobalEnv& globals, OverloadResolver* overloads = nullptr)
      : globals_(globals), overloads_(overloads) {}

  /// The analysed specialization of `def` for `args` (analysing it on first request), or nullptr when `def`
  /// is already being analysed further up (recursion).
  /// `statics` holds the compile-time arguments by parameter index (their `args` entry is None): functions,
  /// dtypes and constants the callee is specialized on (FunctionAnalyzer::device_call).
  Specialization* specialize(const FunctionDef& def, const std::vector<Type>& args, bool is_kernel,
                             const std::map<size_t, ExprResult>& statics = {}, const Closure* closure = nullptr);
  /// The one Closure equal to `c` (ir/sema_closure.cpp).
  const Closure* intern_closure(Closure c);
  /// Remembers the free names `def` is first named in (an inner function: its enclosing function's), so that
  /// a function passed as an argument is analysed in its own names wherever it is called (sema_closure.cpp).
  void note_home_env(const FunctionDef* def) { home_envs_.emplace(def, &globals()); }
  /// Appends `s`, its callees first, to `out` and its diagnostics to `diags` (once each).
  void commit(Specialization* s, TypedProgram& out, Diagnostics& diags);
  /// The free names of the function being analysed: the compile's, or an overload implementation's own
  /// (and those of the functions it calls) while one is analysed (ir/overloads.h).
  const GlobalEnv& globals() const { return envs_.empty() ? globals_ : *envs_.back(); }
  OverloadResolver* overloads() const { return overloads_; }
  /// The resolver's answer to `q` (asked once per query and kept); null without a resolver.
  const OverloadAnswer* resolve_overload(const OverloadQuery& q);
  /// Whether float64 arithmetic in this program deserves the float32-kernel warning (analyze()); true once.
  bool take_float64_warning() {
    if (!warn_float64_ || float64_warned_) return false;
    float64_warned_ = true;
    return true;
  }
  void set_float64_warning(bool on) { warn_float64_ = on; }
  /// The return type the caller declares for the entry function `def` (a device entry, analyze()).
  void set_entry_return(const FunctionDef* def, const Type& t) {
    entry_def_ = def;
    entry_return_ = t;
  }
  Type entry_return(const FunctionDef& def) const {
    return &def.origin() == entry_def_ ? entry_return_ : Type::invalid();
  }
  /// The chain of functions being analysed, outermost first (for recursion messages).
  const std::vector<const FunctionDef*>& stack() const { return stack_; }

 private:
  const GlobalEnv& globals_;
  OverloadResolver* overloads_ = nullptr;
  std::map<std::string, std::unique_ptr<OverloadAnswer>> answers_;
  std::map<std::string, std::unique_ptr<Closure>> closures_;
  std::map<const FunctionDef*, const GlobalEnv*> impl_envs_;  // each implementation's own free names
  std::map<const FunctionDef*, const GlobalEnv*> home_envs_;  // where each function was first named
  std::vector<const GlobalEnv*> envs_;                        // per function being analysed, innermost last
  std::map<std::pair<const FunctionDef*, std::string>, std::unique_ptr<Specialization>> specs_;
  std::vector<const FunctionDef*> stack_;
  bool warn_float64_ = false;
  bool float64_warned_ = false;
  std::set<const FunctionDef*> syntax_errors_reported_;
  const FunctionDef* entry_def_ = nullptr;
  Type entry_return_;
};

/// A variable's name as the user wrote it: an unrolled loop's copies name theirs `x$3_0`, `x$3_1`... (`x`).
inline std::string user_name(const std::string& id) {
  size_t cut = id.find('$', 1);
  return id.empty() || id[0] == '$' || cut == std::string::npos ? id : id.substr(0, cut);
}

/// A copy of `def` with `rewrites` made: each loop unrolled (one copy of the body per element, each with its
/// own loop variable), each starred argument spread (ir/sema_rewrite.cpp).
std::shared_ptr<const FunctionDef> rewrite_function(const FunctionDef& def, const Rewrites& rewrites);

class FunctionAnalyzer {
 public:
  FunctionAnalyzer(ProgramAnalyzer& program, Specialization& spec, const FunctionDef& def,
                   const std::vector<Type>& args, bool is_kernel, const std::map<size_t, ExprResult>& statics,
                   const Closure* closure = nullptr);
  void run();

  // --- statements (sema.cpp)
  void block(const Block& b);
  void stmt(const Stmt& s);
  void assign(const AssignStmt& s);
  void aug_assign(const AugAssignStmt& s);
  /// The operand types of an augmented assignment into fn_ (the right operand's too when it has its own).
  void record_aug_operands(const AugAssignStmt& s, const OpTyping& t);
  void for_stmt(const ForStmt& s);
  /// A `literal_unroll` loop over a tuple of mixed types: noted in spec_.rewrites instead of analysed (true).
  bool defer_unroll(const ForStmt& s);
  /// A builtin call with `*t` arguments: noted in spec_.rewrites to spread them (true), or an error.
  bool defer_star_call(const CallExpr& e, const std::string& name);
  /// Whether evaluating `e` twice does what evaluating it once does: no call that writes memory, draws a
  /// random number or calls a device function.
  bool free_of_effects(const Expr& e);
  void return_stmt(const ReturnStmt& s);
  void raise_stmt(const RaiseStmt& s);  // ir/sema_raise.cpp
  /// Binds one assignment target to a value of type `t` coming from `value_expr` (null for a loop).
  void assign_target(const Expr& target, const Type& t, const Expr* value_expr);
  void bind_var(const std::string& name, const Type& t, const NameExpr& target);
  /// Checks a store of a value of type `t` into a place of type `place` (an element, a record field, a view).
  void store_check(const Type& place, const Type& t, const Expr& value_expr);
  /// Checks `view[...] = value`: a scalar convertible to its dtype, or an array of its rank.
  void slice_store(const Type& view, const Type& t, const Expr& value_expr);
  /// Analyses an if/while test and checks it has a truth value; returns its analysis (a constant test folds).
  ExprResult check_condition(const Expr& test, const char* construct);

  // --- expressions (sema_expr.cpp)
  ExprResult expr(const Expr& e);
  /// An expression that must denote a value (not a module, dtype, void call...); Error otherwise.
  ExprResult value(const Expr& e);
  /// value() of `e` whose expr() gave `r`: `r`, or an error when it is not a value.
  ExprResult value_of(const Expr& e, ExprResult r);
  ExprResult name(const NameExpr& e);
  ExprResult global(const std::string& id, const GlobalValue& g, const Expr& e);
  ExprResult attribute(const AttributeExpr& e);
  ExprResult module_attribute(const std::string& module, const std::string& attr, const Expr& e,
                              SourceRange attr_range);
  /// `rec.name` or `rec['name']` on a record value: the field's value type (a sub-array field is a C array).
  /// An unknown name is an error at `name_range` that lists the record's fields.
  ExprResult record_field(const Expr& e, const Type& rec, const std::string& name, SourceRange name_range);
  /// `ary.name` or `ary['name']` on an array of records: a view of that field of every element (any layout;
  /// a sub-array field adds its axes).
  ExprResult record_field_view(const Expr& e, const Type& array, const std::string& name, SourceRange name_range);
  ExprResult binop(const BinOpExpr& e);
  ExprResult unary(const UnaryOpExpr& e);
  ExprResult boolop(const BoolOpExpr& e);
  ExprResult compare(const CompareExpr& e);
  ExprResult ifexp(const IfExpExpr& e);
  ExprResult tuple(const TupleExpr& e);
  // --- subscripts and slices (sema_subscript.cpp)
  ExprResult subscript(const SubscriptExpr& e, bool is_store);
  /// One component of an array index: an integer (type) or a slice.
  struct IndexPart {
    const Expr* expr;         // where it is written
    const SliceExpr* slice;   // null for an integer index
    Type type;                // an integer index's type
  };
  /// Types an array access: an element when every axis has an integer index (operand_types: int64 per axis),
  /// else a view with numba's layout. `index_type` is the whole index's type when it has no slices (for its
  /// error message). Error after reporting one.
  ExprResult cache_hint_on_pointer(const CallExpr& e, const BuiltinInfo& b, const std::vector<ExprResult>& args);
  ExprResult array_subscript(const SubscriptExpr& e, const Type& array_type,
                             const std::vector<IndexPart>& parts, const Type* index_type);
  /// Types a slice's bounds and step (integers or None; a constant step not zero). False after an error.
  bool slice_bounds(const SliceExpr& s);

  // --- calls and builtins (sema_call.cpp)
  ExprResult call(const CallExpr& e);
  ExprResult builtin_call(const CallExpr& e, const BuiltinInfo& b, const std::vector<ExprResult>& args);
  /// The best-fitting explicit signature of `callee` for a call's argument types `types`, which it replaces
  /// by its parameter types; null (after an error) when none fits.
  const Signature* declared_signature(const CallExpr& e, const FunctionDef& callee,
                                      const std::vector<Signature>& signatures, std::vector<Type>& types);
  /// A call of a declare_device function (ir/sema_extern.cpp).
  ExprResult extern_call(const CallExpr& e, const ExternFunction& callee, const std::vector<ExprResult>& args);
  /// The default value of `callee`'s parameter `i` as an omitted argument (ExprResult::omitted); an error at
  /// the call `e` if it has none or it is not a constant.
  std::optional<ExprResult> default_argument(const CallExpr& e, const FunctionDef& callee, size_t i);
  /// Records a call of the device function specialization `s` at `at` (as `name`): the specialization among
  /// the callees, the expression's symbol (sema_call.cpp).
  void note_device_call(const Expr& at, Specialization& s, const std::string& name);
  /// Calls and members typed by the embedder's @overload implementations (ir/sema_overload.cpp).
  ExprResult overload_call(const CallExpr& e, const ExprResult& callee);
  /// `x.name` on a value, when an @overload_method or @overload_attribute declares `name`: a bound method
  /// (What::Overload) or the attribute's value; nullopt when no implementation takes x's type.
  std::optional<ExprResult> overloaded_member(const AttributeExpr& e, const ExprResult& base);
  ExprResult device_call(const CallExpr& e, const FunctionDef& callee, const std::vector<ExprResult>& args,
                         const std::vector<Signature>* signatures = nullptr, const Closure* closure = nullptr);
  /// Inner functions (ir/sema_closure.cpp): a name that denotes one (defined in this function, or a sibling
  /// or capture seen through closure_), or a captured value or a refused read; nullopt when `id` is none.
  std::optional<ExprResult> closure_name(const NameExpr& e);
  /// What the inner functions defined in this function see of it.
  const Closure* make_closure();
  /// Keyword arguments at a device function's call, put in their parameters' places (ir/sema_closure.cpp);
  /// false after an error.
  bool place_keywords(const CallExpr& e, const FunctionDef& callee, std::vector<ExprResult>& args);
  /// A NumPy ufunc over arrays: np.sin(a, out), np.add(a, b, out=c) (ir/ufuncs.h). `out_keyword`: the
  /// last of `args` came as out=.
  ExprResult ufunc_call(const CallExpr& e, const UfuncInfo& u, const std::vector<ExprResult>& args,
                        bool out_keyword);
  /// np.sum(a), a.sum(), np.nanmax(a) ...: a whole-array reduction (ir/ufuncs.h).
  ExprResult reduction_call(const CallExpr& e, const ArrayReduction& r, const std::vector<ExprResult>& args,
                            bool method);
  ExprResult cast_call(const CallExpr& e, ScalarKind dtype, const std::vector<ExprResult>& args);
  ExprResult array_alloc(const CallExpr& e, const BuiltinInfo& b);
  /// After an error about a shared.array/local.array call whose shape is not a constant: a note with
  /// numba-cuda's words for it, "No implementation of function Function(<function shared.array>) found for
  /// signature: >>> array(shape=int32, dtype=class(float32))", the arguments spelled as numba types them.
  void note_array_alloc_signature(const CallExpr& e, const char* what, const Expr& shape, const Expr& dtype);
  /// How numba's typing spells the value of `e` in a signature: "int32", "Literal[int](1)" for an integer
  /// constant inside a tuple, "array(float32, 1d, A)", "Tuple(Literal[int](1), int32)", "class(float32)".
  std::string numba_spelling(const Expr& e, bool in_tuple);
  ExprResult array_method_call(const CallExpr& e, const std::string& method);
  /// a.copy() of a captured global array: a copy in local memory (sema_array_method.cpp).
  ExprResult array_copy(const CallExpr& e, const Expr& receiver, const Type& t);
  ExprResult pointer_array_call(const CallExpr& e, const BuiltinInfo& b);
  /// The alignment= argument of shared.array/local.array: None (0), or a constant power of two up to
  /// kMaxArrayAlignment. Returns false after reporting an error pointing at the argument.
  bool array_alignment(const Expr& arg, const char* what, unsigned* alignment);
  ExprResult range_call(const CallExpr& e);
  /// Why a shape expression is not a compile-time constant ("'n' is an argument"), or "".
  std::string why_not_constant(const Expr& e);

  // --- atomics (sema_atomics.cpp)
  /// atomic.add/sub/max/min/nanmax/nanmin/and_/or_/xor/exch/inc/dec(ary, idx, val).
  ExprResult atomic_call(const CallExpr& e, const BuiltinInfo& b, const std::vector<ExprResult>& args);
  /// atomic.cas(ary, idx, old, val) and atomic.compare_and_swap(ary, old, val).
  ExprResult atomic_cas_call(const CallExpr& e, const BuiltinInfo& b, const std::vector<ExprResult>& args);
  /// Checks an atomic's array and index arguments; fills *dtype and *idx_type. False after an error.
  bool atomic_target(const CallExpr& e, const BuiltinInfo& b, const std::vector<ExprResult>& args,
                     const Expr* idx_expr, const Type* idx, Type* idx_type);

  // --- integer/float intrinsics and print (sema_intrinsics.cpp)
  ExprResult intrinsic_call(const CallExpr& e, const BuiltinInfo& b, const std::vector<ExprResult>& args);
  /// print(...): analysed before its arguments, since string literals are only values here.
  ExprResult print_call(const CallExpr& e, const BuiltinInfo& b);
  /// isinstance(x, classes): a bool constant from x's type, numba's rules (sema_isinstance.cpp); analysed
  /// before its arguments, since classes are no values.
  ExprResult isinstance_call(const CallExpr& e);

  // --- warp operations (sema_warp.cpp), complex numbers (sema_complex.cpp), gpu.random and
  //     cooperative groups (sema_random.cpp)
  ExprResult warp_call(const CallExpr& e, const BuiltinInfo& b, const std::vector<ExprResult>& args);
  /// complex(), z.conjugate(), abs() of a complex number and the cmath functions.
  ExprResult complex_call(const CallExpr& e, const BuiltinInfo& b, const std::vector<ExprResult>& args);
  /// math.sqrt(b) ... of a bfloat16: the bf16 function numba-cuda binds to it (ir/bf16_functions.h).
  ExprResult bfloat16_math_call(const CallExpr& e, const BuiltinInfo& b, const std::vector<ExprResult>& args);
  /// An attribute of a number or grid group value (z.real, z.conjugate, g.sync); reports unknown ones.
  ExprResult member(const AttributeExpr& e, const ExprResult& base);
  ExprResult random_call(const CallExpr& e, const BuiltinInfo& b, const std::vector<ExprResult>& args);
  ExprResult grid_group_call(const CallExpr& e, const BuiltinInfo& b, const std::vector<ExprResult>& args);

  // --- Python builtins over tuples and arrays (sema_python.cpp)
  /// divmod(a, b), tuple(t), sum(t[, start]) / sum(a), min(t) / max(t) of a tuple.
  ExprResult python_builtin_call(const CallExpr& e, const BuiltinInfo& b,
                                 const std::vector<ExprResult>& args);

  // --- CUDA vector types and Dim3 (sema_vector.cpp)
  /// cuda.float32x4(...): numbers and vectors of the base type whose lanes add up to the vector's.
  ExprResult vector_call(const CallExpr& e, const BuiltinInfo& b, const std::vector<ExprResult>& args);
  /// v.x, v.y, v.z, v.w of a vector or Dim3 value.
  ExprResult vector_lane(const AttributeExpr& e, const Type& vector);

  // --- namedtuples (sema_named_tuple.cpp)
  /// `p.x` of an instance of a namedtuple class: its element at the field's position.
  ExprResult named_tuple_field(const AttributeExpr& e, const Type& tuple);

  // --- Enum members (sema_enum.cpp)
  /// `m.value` of an Enum member `base` (a constant when the member is); `m.name` and others are errors.
  ExprResult enum_attribute(const AttributeExpr& e, const ExprResult& base);

  // --- constant memory (sema_memory.cpp)
  /// A global NumPy array named in a kernel: a C-layout array in constant memory.
  ExprResult const_array(const std::string& id, const GlobalValue& g, const Expr& e);
  /// A global tuple of NumPy arrays: a tuple of constant arrays.
  ExprResult array_tuple(const std::string& id, const GlobalValue& g, const Expr& e);
  /// A captured device array: an array of its dtype, rank and layout whose data lives at a fixed address.
  ExprResult device_array_global(const std::string& id, const GlobalValue& g, const Expr& e);
  ExprResult array_like_call(const CallExpr& e, const BuiltinInfo& b, const std::vector<ExprResult>& args);
  /// Whether `e` denotes a constant-memory array: a captured global array, const.array_like of one, or a
  /// local variable assigned one. Stores and atomics into those are errors.
  bool is_const_array(const Expr& e) const;
  /// Reports `what` (a store, an atomic) into a constant array; returns false if `target` is not one.
  bool reject_const_array_write(const Expr& target, const char* what);
  /// "shared" or "local" when `e` is seen to be a shared.array or local.array (made here, a local variable
  /// assigned one, or a view of one), else nullptr. Arrays a device function receives are not traced.
  const char* block_memory_of(const Expr& e) const;
  /// cuda.ldca/ldcg/ldcs/ldlu/ldcv(ary, idx) and cuda.stcg/stcs/stwb/stwt(ary, idx, val).
  ExprResult cache_hint_call(const CallExpr& e, const BuiltinInfo& b, const std::vector<ExprResult>& args);

  // --- recursion (sema_recursion.cpp)
  /// A call of the function being analysed with its own argument types: typed by the return statements
  /// seen so far (or the decorator's signature); Unknown while inferring, an error when none gives a type.
  ExprResult self_call(const CallExpr& e, Specialization& self, const std::vector<Type>& types);
  /// The return type a `@jit("ret(args)", device=True)` decorator declares, or invalid.
  static Type declared_return_type(const FunctionDef& def);

  // --- helpers
  bool checking() const { return checking_; }
  void error(SourceRange r, std::string message);
  /// Records what analysis learned about `e` (check mode only) and returns `r`.
  ExprResult record(const Expr& e, ExprResult r);
  Operand operand(const ExprResult& r) const { return Operand{r.type, r.constant()}; }
  /// Warns (once per program) when an operation of a float32/float16 operand and a float64 or int64 one
  /// computes in float64 (ProgramAnalyzer::take_float64_warning says whether this program wants it).
  void note_float64(SourceRange at, const Type& computed, const std::vector<std::pair<const Expr*, ExprResult>>& operands);
  /// " ('x' is an argument)" / " ('x' was assigned at line 4)" for a Name operand, else "".
  std::string origin_of(const Expr& e) const;
  /// The dotted text of a name/attribute chain as the user wrote it ("gpu.shared.array"), or "".
  static std::string path_of(const Expr& e);
  bool is_local_name(const std::string& id) const { return local_names_.count(id) != 0; }
  const std::string& name_of_function() const { return def_.name; }

  struct VarInfo {
    Type type;
    SourceRange origin;  // the assignment that first gave the variable its type
    bool is_param = false;
    int param_index = -1;
  };

  ProgramAnalyzer& program_;
  const Closure* closure_ = nullptr;  // an inner function's view of its enclosing function
  bool making_closure_ = false;       // make_closure() is evaluating a constant (which may name the closure)
  Specialization& spec_;
  TypedFunction& fn_;
  const FunctionDef& def_;
  SourceFilePtr file_;
  bool is_kernel_;
  bool checking_ = false;
  bool changed_ = false;
  int loop_depth_ = 0;
  std::set<std::string> local_names_;  // every name the function binds (Python's local scope)
  /// Locals bound exactly once, by a plain `name = value`: their value expression. A shared or local array's
  /// shape may name one whose value is a constant (`N = 100; shared.array(N, int32)`), as numba allows.
  std::map<std::string, const Expr*> assigned_once_;
  std::map<std::string, VarInfo> vars_;
  /// The `literal_unroll(t)` calls that are the iterable of a `for` loop (block() finds them), which may
  /// be over a tuple of mixed types.
  std::set<const Expr*> unroll_iterables_;
  /// Parameters bound at compile time: each name stands for its argument (a function, dtype or constant).
  std::map<std::string, ExprResult> static_params_;
  std::set<std::string> failed_vars_;  // a binding's value had an error: stay quiet about reads
  std::set<std::string> reported_conflicts_;
  std::set<std::string> const_array_vars_;  // locals assigned a constant-memory array (read-only)
  std::map<std::string, const char*> block_memory_vars_;  // locals assigned a shared or local array
  // Device functions: what the return statements return.
  Type return_type_;
  Type declared_return_;  // from the decorator's signature; returns convert to it
  SourceRange return_origin_;
  SourceRange bare_return_;    // a `return` without value seen (valid if the range is)
  bool calls_itself_ = false;  // a self-call was typed (ir/sema_recursion.cpp)
};

/// The canonical module names the kernel namespace is reached through.
bool is_kernel_module(const std::string& canonical);
/// What tells one compile-time value from another in a key: a specialization's static arguments, a closure's
/// captures (ir/sema.cpp).
std::string static_key(const ExprResult& r);

/// "; did you mean 'sqrt'?" naming the candidate closest to `wrong` (sema_expr.cpp), else "".
std::string suggest(std::string_view wrong, const std::vector<std::string_view>& candidates);
/// "1 index" / "2 indices".
std::string plural(size_t n, const char* one, const char* many);

}  // namespace gpujit
