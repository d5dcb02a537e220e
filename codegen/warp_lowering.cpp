// Warp-level builtins and cooperative groups, lowered through the target (codegen/target.h).
//
// Analysis (ir/sema_warp.cpp) converted every argument to its operand type: the lane mask to uint32, a
// shuffled value to its own 32- or 64-bit type, lanes and deltas to int32, predicates to bool, matched
// values to int32/int64/float32/float64. Here floats travel as the integer of the same width (a bitcast,
// so a shuffle moves the exact bits, NaN payloads included) and the target does the rest: PTX's
// shfl.sync/vote.sync/match.sync on the GPU, a rendezvous of the warp's fibers on the host.
#include <llvm/IR/Constants.h>

#include "codegen/function_lowering.h"
#include "codegen/lowering.h"
#include "ir/builtins.h"

namespace gpujit {

namespace {

Target::Shuffle shuffle_mode(BuiltinId id) {
  switch (id) {
    case BuiltinId::ShflUpSync:
      return Target::Shuffle::Up;
    case BuiltinId::ShflDownSync:
      return Target::Shuffle::Down;
    case BuiltinId::ShflXorSync:
      return Target::Shuffle::Xor;
    default:
      return Target::Shuffle::Idx;
  }
}

Target::Vote vote_mode(BuiltinId id) {
  switch (id) {
    case BuiltinId::AllSync:
      return Target::Vote::All;
    case BuiltinId::AnySync:
      return Target::Vote::Any;
    case BuiltinId::EqSync:
      return Target::Vote::Eq;
    default:
      return Target::Vote::Ballot;
  }
}

}  // namespace

llvm::Value* FunctionLowering::lower_warp(const BuiltinInfo& bi, const CallExpr& e) {
  Target& target = m_.target();
  const Type& result = type_of(e);
  const Type u32 = Type::scalar_of(ScalarKind::UInt32);
  const Type i32 = Type::scalar_of(ScalarKind::Int32);
  const Type boolean = Type::scalar_of(ScalarKind::Bool);
  if (bi.id == BuiltinId::ActiveMask) return cast(target.warp_active_mask(b_), u32, result);
  if (bi.id == BuiltinId::LanemaskLt) return cast(target.lanemask_lt(b_), u32, result);

  auto it = fn_.operand_types.find(&e);
  if (it == fn_.operand_types.end() || it->second.size() != e.args.size())
    internal("warp builtin " + bi.qualified_name() + " without operand types");
  const std::vector<Type>& ops = it->second;
  std::vector<llvm::Value*> args;
  for (size_t i = 0; i < e.args.size(); ++i) args.push_back(lower_expr_as(*e.args[i], ops[i]));

  // A float value as the integer of its width, and back.
  const Type& vt = ops[1];
  llvm::Type* value_type = llvm_type(vt);
  llvm::Type* bits_type = b_.getIntNTy(value_type->getPrimitiveSizeInBits());
  auto as_bits = [&](llvm::Value* v) { return vt.is_float() ? b_.CreateBitCast(v, bits_type) : v; };

  switch (bi.id) {
    case BuiltinId::ShflSync:
    case BuiltinId::ShflUpSync:
    case BuiltinId::ShflDownSync:
    case BuiltinId::ShflXorSync: {
      llvm::Value* r = target.warp_shuffle(b_, shuffle_mode(bi.id), args[0], as_bits(args[1]), args[2]);
      if (vt.is_float()) r = b_.CreateBitCast(r, value_type);
      return cast(r, vt, result);
    }
    case BuiltinId::AllSync:
    case BuiltinId::AnySync:
    case BuiltinId::EqSync:
      return cast(target.warp_vote(b_, vote_mode(bi.id), args[0], args[1]), boolean, result);
    case BuiltinId::BallotSync:
      return cast(target.warp_vote(b_, Target::Vote::Ballot, args[0], args[1]), i32, result);
    case BuiltinId::MatchAnySync:
      return cast(target.warp_match(b_, false, args[0], as_bits(args[1])), i32, result);
    case BuiltinId::MatchAllSync: {
      // {i32 mask, i1 pred} is the representation of the (int32, bool) tuple analysis gave it.
      llvm::Value* r = target.warp_match(b_, true, args[0], as_bits(args[1]));
      return cast(r, Type::tuple_of({i32, boolean}), result);
    }
    default:
      break;
  }
  internal("no lowering for warp builtin " + bi.qualified_name());
}

bool uses_grid_sync(const TypedProgram& program) {
  // cg.this_grid() alone counts too: numba launches every kernel that takes the grid group cooperatively (its
  // Overload.cooperative), so its launches are limited to a resident grid the same way.
  // So does a call of an external function declared with use_cooperative=True (numba's ExternalCodeLibrary
  // marks the kernel's library cooperative when it links that code in).
  for (const auto& fn : program.functions) {
    for (const ExternFunction* x : fn->externs) {
      if (x->cooperative) return true;
    }
    for (const auto& [expr, symbol] : fn->symbols) {
      if (symbol.kind == Symbol::Kind::Builtin && symbol.builtin &&
          (symbol.builtin->id == BuiltinId::GridGroupSync || symbol.builtin->id == BuiltinId::CgThisGrid))
        return true;
    }
  }
  return false;
}

llvm::Value* FunctionLowering::lower_grid_group(const BuiltinInfo& bi, const CallExpr& e) {
  const Type& result = type_of(e);
  if (bi.id == BuiltinId::CgThisGrid) return llvm::Constant::getNullValue(llvm_type(result));
  if (bi.id != BuiltinId::GridGroupSync) internal("no lowering for " + bi.qualified_name());
  // g.sync(): the receiver carries no data; only the barrier matters.
  m_.target().grid_sync(b_);
  return cast(b_.getInt32(0), Type::scalar_of(ScalarKind::Int32), result);
}

}  // namespace gpujit
