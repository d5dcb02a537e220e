// Expressions: names, literals, constants, tuples, calls, attributes, subscripts, and the operators whose
// evaluation order Python fixes (and/or, chained comparisons, conditional expressions).
//
// Every lowered value has exactly the type analysis recorded for its expression; conversions to an operand
// type, a parameter type or a variable's type go through cast() (arithmetic.cpp). Evaluation order is
// Python's: left to right, each operand once; `and`/`or` and chained comparisons stop at the first operand
// that decides the result, and `and`/`or` yield that operand's value (converted to the expression's type),
// not a bool, as in Python and numba.
#include <llvm/IR/Constants.h>

#include "codegen/function_lowering.h"
#include "ir/builtins.h"
#include "ir/named_tuple.h"
#include "codegen/host_abi.h"

namespace gpujit {

llvm::Value* FunctionLowering::lower_expr_as(const Expr& e, const Type& to) {
  return cast(lower_expr(e), type_of(e), to);
}

llvm::Value* FunctionLowering::lower_expr(const Expr& e) {
  // What analysis folded is emitted as its value; the fold has the run-time semantics (ir/const_eval.h).
  // A string is a value where analysis typed it (a CharSeq), not as print()'s text.
  if (const ConstValue* c = fn_.constant_of(&e);
      c && (c->kind != ConstValue::Kind::String || fn_.expr_types.count(&e)))
    return lower_constant(*c, type_of(e));
  if (e.kind == ExprKind::Name || e.kind == ExprKind::Attribute) {
    if (const Symbol* s = symbol_of(e); s && s->kind == Symbol::Kind::Constant)
      return lower_constant(s->constant, type_of(e));
  }
  const Type& t = type_of(e);
  switch (e.kind) {
    case ExprKind::Name:
      return lower_name(static_cast<const NameExpr&>(e));
    case ExprKind::IntLit: {
      uint64_t v = static_cast<const IntLitExpr&>(e).value;
      Type own = Type::scalar_of(v > uint64_t(INT64_MAX) ? ScalarKind::UInt64 : ScalarKind::Int64);
      return cast(b_.getInt64(v), own, t);
    }
    case ExprKind::FloatLit:
      if (static_cast<const FloatLitExpr&>(e).imaginary) {
        llvm::Type* d = b_.getDoubleTy();
        llvm::Constant* parts[] = {llvm::ConstantFP::get(d, 0.0),
                                   llvm::ConstantFP::get(d, static_cast<const FloatLitExpr&>(e).value)};
        return cast(llvm::ConstantStruct::getAnon(m_.ctx(), parts), Type::scalar_of(ScalarKind::Complex128), t);
      }
      return cast(llvm::ConstantFP::get(b_.getDoubleTy(), static_cast<const FloatLitExpr&>(e).value),
                  Type::scalar_of(ScalarKind::Float64), t);
    case ExprKind::BoolLit:
      return cast(b_.getInt1(static_cast<const BoolLitExpr&>(e).value), Type::scalar_of(ScalarKind::Bool), t);
    case ExprKind::NoneLit:
      return llvm::Constant::getNullValue(llvm_type(Type::none()));
    case ExprKind::StringLit:
      return unsupported(e, "strings are only supported as arguments of print()");
    case ExprKind::UnaryOp:
      return lower_unary(static_cast<const UnaryOpExpr&>(e));
    case ExprKind::BinOp:
      return lower_binary(static_cast<const BinOpExpr&>(e));
    case ExprKind::BoolOp:
      return lower_bool_op(static_cast<const BoolOpExpr&>(e));
    case ExprKind::Compare:
      return lower_compare(static_cast<const CompareExpr&>(e));
    case ExprKind::Call:
      return lower_call(static_cast<const CallExpr&>(e));
    case ExprKind::Attribute:
      return lower_attribute(static_cast<const AttributeExpr&>(e));
    case ExprKind::Subscript:
      return lower_subscript(static_cast<const SubscriptExpr&>(e));
    case ExprKind::Slice:
      return unsupported(e, "a slice is only valid as an array index");
    case ExprKind::Tuple:
      return lower_tuple(static_cast<const TupleExpr&>(e));
    case ExprKind::IfExp:
      return lower_if_exp(static_cast<const IfExpExpr&>(e));
  }
  internal("unknown expression kind");
}

llvm::Value* FunctionLowering::lower_name(const NameExpr& e) {
  const Symbol* s = symbol_of(e);
  if (!s || s->kind == Symbol::Kind::Local) {
    auto it = fn_.locals.find(e.id);
    if (it == fn_.locals.end()) internal("name '" + e.id + "' is neither a local nor a resolved symbol");
    llvm::Value* v = b_.CreateLoad(llvm_type(it->second), local_slot(e.id), e.id);
    return cast(v, it->second, type_of(e));
  }
  if (s->kind == Symbol::Kind::Builtin && s->builtin) return lower_builtin_value(*s->builtin, e);
  if (s->kind == Symbol::Kind::BuiltinNamespace) return lower_dim3(s->name);  // cuda.threadIdx whole
  if (s->kind == Symbol::Kind::ConstArray) {
    auto g = m_.globals().find(s->name);
    if (g != m_.globals().end() && g->second.kind == GlobalValue::Kind::DeviceArray)
      return make_device_array_global(g->second, type_of(e));
    if (g != m_.globals().end() && g->second.kind == GlobalValue::Kind::ArrayTuple) {
      const Type& t = type_of(e);
      llvm::Value* agg = llvm::PoisonValue::get(llvm_type(t));
      for (unsigned k = 0; k < g->second.element_globals.size(); ++k) {
        const std::string& name = g->second.element_globals[k];
        auto a = m_.globals().find(name);
        if (a == m_.globals().end()) internal("global tuple without its array '" + name + "'");
        agg = b_.CreateInsertValue(agg, make_const_array(name, a->second, t.elements[k]), {k});
      }
      return agg;
    }
    if (g == m_.globals().end() || g->second.kind != GlobalValue::Kind::ConstArray)
      internal("constant array '" + s->name + "' is not a captured array");
    return make_const_array(s->name, g->second, type_of(e));
  }
  internal("name '" + e.id + "' does not denote a value");
}

namespace {

/// A constant's value in its own type, as an LLVM constant.
llvm::Constant* own_constant(ModuleLowering& m, const ConstValue& c) {
  switch (c.kind) {
    case ConstValue::Kind::Int:
      return llvm::ConstantInt::get(m.llvm_type(Type::scalar_of(c.scalar)), static_cast<uint64_t>(c.i));
    case ConstValue::Kind::Float:
      return llvm::ConstantFP::get(m.llvm_type(Type::scalar_of(c.scalar)), c.f);
    case ConstValue::Kind::Bool:
      return llvm::ConstantInt::get(llvm::Type::getInt1Ty(m.ctx()), c.i != 0);
    case ConstValue::Kind::None:
      return llvm::Constant::getNullValue(m.llvm_type(Type::none()));
    case ConstValue::Kind::Tuple: {
      std::vector<llvm::Constant*> elts;
      for (const ConstValue& e : c.elements) elts.push_back(own_constant(m, e));
      return llvm::ConstantStruct::getAnon(m.ctx(), elts);
    }
    case ConstValue::Kind::String:
      return charseq_constant(m.ctx(), c);  // text_lowering.cpp
  }
  return nullptr;
}

}  // namespace

llvm::Value* FunctionLowering::lower_constant(const ConstValue& c, const Type& t) {
  llvm::Constant* v = own_constant(m_, c);
  if (!v) internal("a string constant has no value in a kernel");
  return cast(v, c.type(), t);
}

llvm::Value* FunctionLowering::lower_tuple(const TupleExpr& e) {
  const Type& t = type_of(e);
  if (!t.is_tuple() || t.elements.size() != e.elts.size())
    internal("tuple expression typed '" + t.str() + "'");
  llvm::Value* agg = llvm::PoisonValue::get(llvm_type(t));
  for (unsigned i = 0; i < e.elts.size(); ++i)
    agg = b_.CreateInsertValue(agg, lower_expr_as(*e.elts[i], t.elements[i]), {i});
  return agg;
}

std::vector<const Expr*> FunctionLowering::bind_arguments(const CallExpr& e,
                                                          const std::vector<std::string>& names) {
  std::vector<const Expr*> out(std::max(names.size(), e.args.size()), nullptr);
  for (size_t i = 0; i < e.args.size(); ++i) out[i] = e.args[i].get();
  for (const Keyword& kw : e.keywords) {
    auto it = std::find(names.begin(), names.end(), kw.name);
    if (it == names.end()) internal("keyword argument '" + kw.name + "' matches no parameter");
    out[size_t(it - names.begin())] = kw.value.get();
  }
  return out;
}

llvm::Value* FunctionLowering::lower_call(const CallExpr& e) {
  if (auto it = fn_.ufunc_calls.find(&e); it != fn_.ufunc_calls.end()) return lower_ufunc(it->second);
  if (auto it = fn_.reduction_calls.find(&e); it != fn_.reduction_calls.end())
    return cast(lower_reduction(it->second), Type::scalar_of(it->second.result), type_of(e));
  if (auto it = fn_.array_method_calls.find(&e); it != fn_.array_method_calls.end())
    return lower_array_method(it->second, type_of(e));
  const Symbol* s = symbol_of(*e.func);
  if (!s) s = symbol_of(e);
  if (!s) internal("call without a resolved callee");
  switch (s->kind) {
    case Symbol::Kind::Builtin:
      if (!s->builtin) internal("builtin symbol without a table entry");
      return lower_builtin_call(*s->builtin, e);
    case Symbol::Kind::DeviceFunction:
      if (!s->callee) internal("device function symbol without a typed callee");
      return lower_device_call(e, *s->callee);
    case Symbol::Kind::ExternFunction:
      if (!s->extern_fn) internal("external function symbol without its declaration");
      return lower_extern_call(e, *s->extern_fn);
    case Symbol::Kind::DType: {
      // float32(x), np.int32(x): a conversion; with no argument, the dtype's zero.
      const Type& t = type_of(e);
      if (t.is_bfloat16()) {  // every bfloat16 value starts at a bfloat16(x) or a cuda.bf16 function
        if (std::string why = m_.target().bfloat16_unsupported(); !why.empty()) return unsupported(e, why);
      }
      if (e.args.empty()) return llvm::Constant::getNullValue(llvm_type(t));
      return lower_expr_as(*e.args[0], t);
    }
    default:
      internal("call of something that is not callable");
  }
}

llvm::Value* FunctionLowering::lower_device_call(const CallExpr& e, const TypedFunction& callee) {
  // x.m(args): an @overload_method implementation takes the receiver first (ir/sema_overload.cpp).
  auto receiver = fn_.receivers.find(&e);
  bool method = receiver != fn_.receivers.end();
  if (!method && (callee.def->vararg || !e.starred.empty())) return call_with_star_args(e, callee);
  std::vector<std::string> names;
  for (const Param& p : callee.def->params) names.push_back(p.name);
  if (method && !names.empty()) names.erase(names.begin());
  std::vector<const Expr*> args = bind_arguments(e, names);
  if (method) args.insert(args.begin(), receiver->second);
  return call_device_function(e, args, callee);
}

llvm::Value* FunctionLowering::call_device_function(const Expr& e, const std::vector<const Expr*>& args,
                                                    const TypedFunction& callee) {
  if (args.size() != callee.signature.params.size())
    internal("call of " + callee.name + " with a wrong arity");
  std::vector<llvm::Value*> values;
  for (size_t i = 0; i < args.size(); ++i) {
    const Type& param = callee.signature.params[i];
    // A compile-time argument (a function, a dtype, a constant the callee needs as one, a default value the
    // call leaves out) is part of the callee's specialization and passes nothing (ir/sema_call.cpp).
    if (param.kind == Type::Kind::None) continue;
    if (!args[i]) internal("missing argument in a call of " + callee.name);
    llvm::Value* v = lower_expr_as(*args[i], param);
    if (!v->getType()->isEmptyTy()) values.push_back(v);  // one of no size passes nothing (device_function)
  }
  llvm::Value* result = b_.CreateCall(m_.device_function(callee), values);
  const Type& ret = callee.signature.ret;
  if (ret.is_void() || !ret.is_valid()) return llvm::Constant::getNullValue(llvm_type(Type::none()));
  return cast(result, ret, type_of(e));
}

llvm::Value* FunctionLowering::call_with_star_args(const CallExpr& e, const TypedFunction& callee) {
  // Arguments are positional here (ir/sema_device_call.cpp): the k-th, counting each element of an unpacked
  // `*t` as one, is the k-th parameter, or past the named ones an element of the callee's `*args` tuple.
  const size_t fixed = callee.def->params.size();
  const std::vector<Type>& params = callee.signature.params;
  if (params.size() != fixed + (callee.def->vararg ? 1 : 0)) internal("call of " + callee.name + " with a wrong arity");
  std::vector<llvm::Value*> named(fixed, nullptr);
  std::vector<llvm::Value*> extra;
  const std::vector<Type> no_extra;
  const std::vector<Type>& extra_types = callee.def->vararg ? params.back().elements : no_extra;
  size_t k = 0;
  auto take = [&](llvm::Value* v, const Type& from) {
    if (k < fixed)
      named[k] = cast(v, from, params[k]);
    else if (k - fixed < extra_types.size())
      extra.push_back(cast(v, from, extra_types[k - fixed]));
    else
      internal("call of " + callee.name + " with more arguments than its signature");
    ++k;
  };
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Expr& a = *e.args[i];
    if (e.is_starred(i)) {
      const Type& t = type_of(a);
      llvm::Value* tuple = lower_expr(a);
      for (unsigned j = 0; j < t.elements.size(); ++j) take(b_.CreateExtractValue(tuple, {j}), t.elements[j]);
      continue;
    }
    // A compile-time argument (a function, a dtype) passes nothing (call_device_function).
    if (k < fixed && params[k].kind == Type::Kind::None) {
      ++k;
      continue;
    }
    take(lower_expr(a), type_of(a));
  }
  std::vector<llvm::Value*> values;
  for (size_t i = 0; i < fixed; ++i) {
    if (params[i].kind == Type::Kind::None) continue;  // compile-time, or a default value left out
    if (!named[i]) internal("missing argument in a call of " + callee.name);
    if (!named[i]->getType()->isEmptyTy()) values.push_back(named[i]);
  }
  if (callee.def->vararg) {
    if (extra.size() != extra_types.size()) internal("call of " + callee.name + " with too few extra arguments");
    llvm::Type* tuple_type = llvm_type(params.back());
    llvm::Value* tuple = llvm::PoisonValue::get(tuple_type);
    for (unsigned j = 0; j < extra.size(); ++j) tuple = b_.CreateInsertValue(tuple, extra[j], {j});
    if (!tuple_type->isEmptyTy()) values.push_back(tuple);
  }
  llvm::Value* result = b_.CreateCall(m_.device_function(callee), values);
  const Type& ret = callee.signature.ret;
  if (ret.is_void() || !ret.is_valid()) return llvm::Constant::getNullValue(llvm_type(Type::none()));
  return cast(result, ret, type_of(e));
}

llvm::Value* FunctionLowering::lower_attribute(const AttributeExpr& e) {
  if (const Symbol* s = symbol_of(e); s && s->kind == Symbol::Kind::Builtin && s->builtin)
    return lower_builtin_value(*s->builtin, e);
  if (const Symbol* s = symbol_of(e); s && s->kind == Symbol::Kind::BuiltinNamespace)
    return lower_dim3(s->name);  // cuda.threadIdx whole
  // x.a, typed by an @overload_attribute implementation: a call of it with x (ir/sema_overload.cpp).
  if (const Symbol* s = symbol_of(e); s && s->kind == Symbol::Kind::DeviceFunction && s->callee)
    return call_device_function(e, {e.value.get()}, *s->callee);
  const Type& base = type_of(*e.value);
  if (base.is_vector()) return lower_vector_lane(e);
  if (base.is_tuple() && base.named) {  // p.x of a namedtuple: its element at the field's position
    std::optional<size_t> i = base.named->find(e.attr);
    if (!i || *i >= base.elements.size()) internal("field '" + e.attr + "' of " + base.str());
    return cast(b_.CreateExtractValue(lower_expr(*e.value), {unsigned(*i)}), base.elements[*i], type_of(e));
  }
  if (base.is_enum()) return lower_expr(*e.value);  // m.value: a member is its value (ir/enum_type.h)
  if (base.is_array() && base.record && base.record->find(e.attr) && !find_builtin(BuiltinScope::Array, e.attr))
    return record_field_view(lower_expr(*e.value), base, e.attr);
  if (base.is_array()) return array_attribute(lower_expr(*e.value), base, e.attr, type_of(e));
  if (base.is_record()) return load_place(field_lvalue(*e.value, e.attr));
  return unsupported(e, "attribute '" + e.attr + "' of a " + base.str() + " value is not supported");
}

llvm::Value* FunctionLowering::lower_subscript(const SubscriptExpr& e) {
  const Type& base = type_of(*e.value);
  if (const auto* field = e.index->as<StringLitExpr>(); field && base.is_array())
    return record_field_view(lower_expr(*e.value), base, field->value);
  if (base.is_array()) {
    llvm::Value* array = lower_expr(*e.value);
    IndexResult r = index_array(array, base, *e.index, type_of(e));
    if (r.view) return r.view;
    return cast(load_place(LValue{r.element_ptr, base.element(), true}), base.element(), type_of(e));
  }
  if (base.is_record()) return load_place(field_lvalue(*e.value, field_name(e)));
  if (base.is_pointer()) return cast(load_place(subscript_lvalue(e)), Type::scalar_of(base.scalar), type_of(e));
  if (base.is_tuple()) {
    llvm::Value* tuple = lower_expr(*e.value);
    const auto n = static_cast<int64_t>(base.elements.size());
    if (auto c = const_eval(*e.index); c && c->kind == ConstValue::Kind::Int) {
      int64_t i = c->i < 0 ? c->i + n : c->i;
      if (i < 0 || i >= n) internal("tuple index out of range after analysis");
      return cast(b_.CreateExtractValue(tuple, {unsigned(i)}), base.elements[size_t(i)], type_of(e));
    }
    // A run-time index into a homogeneous tuple: spill it to memory and index that.
    for (const Type& elt : base.elements)
      if (elt != base.elements.front()) internal("run-time index into a heterogeneous tuple");
    if (n == 0) internal("index into an empty tuple");
    llvm::Type* elt = llvm_type(base.elements.front());
    llvm::AllocaInst* spill = entry_alloca(llvm::ArrayType::get(elt, uint64_t(n)), "tuple.spill");
    for (unsigned i = 0; i < n; ++i)
      b_.CreateStore(b_.CreateExtractValue(tuple, {i}),
                     b_.CreateConstInBoundsGEP2_64(spill->getAllocatedType(), spill, 0, i));
    const Type& it = type_of(*e.index);
    // Checked under debug=True (IndexError "tuple index out of range"), wrapped as Python wraps otherwise.
    llvm::Value* idx = checked_index(lower_expr(*e.index), it, i64(n), kTupleIndexAxis, *e.index);
    llvm::Value* ptr = b_.CreateInBoundsGEP(spill->getAllocatedType(), spill, {i64(0), idx});
    return cast(b_.CreateLoad(elt, ptr), base.elements.front(), type_of(e));
  }
  return unsupported(e, "cannot index a value of type " + base.str());
}

llvm::Value* FunctionLowering::lower_bool_op(const BoolOpExpr& e) {
  const Type& t = type_of(e);
  llvm::BasicBlock* end = new_block(e.op == BoolOpKind::And ? "and.end" : "or.end");
  std::vector<std::pair<llvm::Value*, llvm::BasicBlock*>> incoming;
  for (size_t i = 0; i < e.values.size(); ++i) {
    const Expr& operand = *e.values[i];
    llvm::Value* v = lower_expr(operand);
    llvm::Value* result = cast(v, type_of(operand), t);
    if (i + 1 == e.values.size()) {
      incoming.emplace_back(result, b_.GetInsertBlock());
      b_.CreateBr(end);
      break;
    }
    // `a and b` is a when a is falsy, else b; `a or b` is a when a is truthy, else b.
    llvm::Value* decided = truthy(v, type_of(operand));
    if (e.op == BoolOpKind::And) decided = b_.CreateNot(decided);
    incoming.emplace_back(result, b_.GetInsertBlock());
    llvm::BasicBlock* next = new_block(e.op == BoolOpKind::And ? "and.next" : "or.next");
    b_.CreateCondBr(decided, end, next);
    b_.SetInsertPoint(next);
  }
  b_.SetInsertPoint(end);
  llvm::PHINode* phi = b_.CreatePHI(llvm_type(t), unsigned(incoming.size()));
  for (auto& [v, bb] : incoming) phi->addIncoming(v, bb);
  return phi;
}

llvm::Value* FunctionLowering::lower_compare(const CompareExpr& e) {
  auto it = fn_.operand_types.find(&e);
  if (it == fn_.operand_types.end() || it->second.size() != e.ops.size())
    internal("comparison without one operand type per operator");
  const std::vector<Type>& op_types = it->second;
  llvm::Value* lhs = lower_expr(*e.left);
  Type lhs_type = type_of(*e.left);
  if (e.ops.size() == 1) {
    llvm::Value* rhs = lower_expr(*e.comparators[0]);
    llvm::Value* r = compare_values(e.ops[0], lhs, lhs_type, rhs, type_of(*e.comparators[0]), op_types[0]);
    return cast(r, Type::scalar_of(ScalarKind::Bool), type_of(e));
  }
  // a < b < c is (a < b) and (b < c) with b evaluated once; the first false comparison decides.
  llvm::BasicBlock* end = new_block("cmp.end");
  std::vector<std::pair<llvm::Value*, llvm::BasicBlock*>> incoming;
  for (size_t i = 0; i < e.ops.size(); ++i) {
    const Expr& next_expr = *e.comparators[i];
    llvm::Value* rhs = lower_expr(next_expr);
    const Type& rhs_type = type_of(next_expr);
    llvm::Value* r = compare_values(e.ops[i], lhs, lhs_type, rhs, rhs_type, op_types[i]);
    incoming.emplace_back(r, b_.GetInsertBlock());
    if (i + 1 == e.ops.size()) {
      b_.CreateBr(end);
      break;
    }
    llvm::BasicBlock* cont = new_block("cmp.next");
    b_.CreateCondBr(r, cont, end);
    b_.SetInsertPoint(cont);
    lhs = rhs;
    lhs_type = rhs_type;
  }
  b_.SetInsertPoint(end);
  llvm::PHINode* phi = b_.CreatePHI(b_.getInt1Ty(), unsigned(incoming.size()));
  for (auto& [v, bb] : incoming) phi->addIncoming(v, bb);
  return cast(phi, Type::scalar_of(ScalarKind::Bool), type_of(e));
}

llvm::Value* FunctionLowering::lower_if_exp(const IfExpExpr& e) {
  const Type& t = type_of(e);
  llvm::Value* cond = truthy(lower_expr(*e.test), type_of(*e.test));
  llvm::BasicBlock* then_bb = new_block("ifexp.then");
  llvm::BasicBlock* else_bb = new_block("ifexp.else");
  llvm::BasicBlock* end = new_block("ifexp.end");
  b_.CreateCondBr(cond, then_bb, else_bb);
  b_.SetInsertPoint(then_bb);
  llvm::Value* a = lower_expr_as(*e.body, t);
  llvm::BasicBlock* a_bb = b_.GetInsertBlock();
  b_.CreateBr(end);
  b_.SetInsertPoint(else_bb);
  llvm::Value* c = lower_expr_as(*e.orelse, t);
  llvm::BasicBlock* c_bb = b_.GetInsertBlock();
  b_.CreateBr(end);
  b_.SetInsertPoint(end);
  llvm::PHINode* phi = b_.CreatePHI(llvm_type(t), 2);
  phi->addIncoming(a, a_bb);
  phi->addIncoming(c, c_bb);
  return phi;
}

llvm::Value* FunctionLowering::lower_unary(const UnaryOpExpr& e) {
  auto it = fn_.operand_types.find(&e);
  if (it == fn_.operand_types.end() || it->second.size() != 1)
    internal("unary operation without an operand type");
  const Type& op_type = it->second[0];
  llvm::Value* v = lower_expr_as(*e.operand, op_type);
  llvm::Value* r = unary_op(e.op, v, op_type);
  const Type result_type = e.op == UnaryOpKind::Not ? Type::scalar_of(ScalarKind::Bool) : op_type;
  return cast(r, result_type, type_of(e));
}

llvm::Value* FunctionLowering::lower_binary(const BinOpExpr& e) {
  auto it = fn_.operand_types.find(&e);
  if (it == fn_.operand_types.end() || it->second.empty())
    internal("binary operation without an operand type");
  const Type& op_type = it->second[0];
  if (it->second.size() == 2) {  // a datetime64 or timedelta64 operation: each operand has its own type
    const Type& rhs_type = it->second[1];
    llvm::Value* a = lower_expr_as(*e.lhs, op_type);
    return datetime_binary(e.op, a, lower_expr_as(*e.rhs, rhs_type), op_type, rhs_type, type_of(e));
  }
  llvm::Value* a = lower_expr_as(*e.lhs, op_type);
  llvm::Value* b = lower_expr_as(*e.rhs, op_type);
  check_division(e.op, b, op_type, e.range);
  return cast(binary_op(e.op, a, b, op_type), op_type, type_of(e));
}

std::optional<ConstValue> FunctionLowering::const_eval(const Expr& e) const {
  if (const ConstValue* c = fn_.constant_of(&e)) return *c;
  if (const Symbol* s = symbol_of(e); s && s->kind == Symbol::Kind::Constant) return s->constant;
  switch (e.kind) {
    case ExprKind::IntLit:
      return ConstValue::of_int(int64_t(static_cast<const IntLitExpr&>(e).value));
    case ExprKind::FloatLit:
      if (static_cast<const FloatLitExpr&>(e).imaginary) return std::nullopt;
      return ConstValue::of_float(static_cast<const FloatLitExpr&>(e).value);
    case ExprKind::BoolLit:
      return ConstValue::of_bool(static_cast<const BoolLitExpr&>(e).value);
    case ExprKind::UnaryOp: {
      const auto& u = static_cast<const UnaryOpExpr&>(e);
      auto v = const_eval(*u.operand);
      if (!v) return std::nullopt;
      if (u.op == UnaryOpKind::Pos) return v;
      if (u.op == UnaryOpKind::Neg && v->kind == ConstValue::Kind::Int)
        return ConstValue::of_int(-v->i, v->scalar);
      if (u.op == UnaryOpKind::Neg && v->kind == ConstValue::Kind::Float)
        return ConstValue::of_float(-v->f, v->scalar);
      return std::nullopt;
    }
    case ExprKind::BinOp: {
      const auto& bin = static_cast<const BinOpExpr&>(e);
      auto a = const_eval(*bin.lhs), b = const_eval(*bin.rhs);
      if (!a || !b || a->kind != ConstValue::Kind::Int || b->kind != ConstValue::Kind::Int)
        return std::nullopt;
      uint64_t x = uint64_t(a->i), y = uint64_t(b->i);
      switch (bin.op) {
        case BinOpKind::Add:
          return ConstValue::of_int(int64_t(x + y));
        case BinOpKind::Sub:
          return ConstValue::of_int(int64_t(x - y));
        case BinOpKind::Mul:
          return ConstValue::of_int(int64_t(x * y));
        case BinOpKind::FloorDiv:
          if (b->i == 0 || (a->i == INT64_MIN && b->i == -1)) return std::nullopt;
          return ConstValue::of_int(a->i / b->i - ((a->i % b->i != 0) && ((a->i < 0) != (b->i < 0))));
        case BinOpKind::LShift:
          if (b->i < 0 || b->i > 63) return std::nullopt;
          return ConstValue::of_int(int64_t(x << y));
        default:
          return std::nullopt;
      }
    }
    case ExprKind::Tuple: {
      std::vector<ConstValue> elts;
      for (const ExprPtr& elt : static_cast<const TupleExpr&>(e).elts) {
        auto v = const_eval(*elt);
        if (!v) return std::nullopt;
        elts.push_back(*v);
      }
      return ConstValue::of_tuple(std::move(elts));
    }
    default:
      return std::nullopt;
  }
}

}  // namespace gpujit
