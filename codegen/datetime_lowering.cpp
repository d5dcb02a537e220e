// datetime64 and timedelta64 on LLVM values: i64 counts of units, NaT is INT64_MIN (ir/datetime_types.h).
//
// Analysis has converted both operands of every operation to the unit it runs in (ir/datetime_rules.h), so
// the operations here are integer arithmetic guarded by NaT checks; the units matter only in datetime_cast:
// - between units, a whole factor (days to seconds: * 86400), NaT kept. A datetime of years or months
//   going to weeks or finer first becomes the day its year or month starts on (the proleptic Gregorian
//   calendar, days_from_civil below), as numba converts it; the result is exact for every representable date.
// - NaT in, NaT out: + - * / of a NaT give NaT; timedelta64 / timedelta64 gives NaN and // gives 0; a
//   division of a timedelta64 by 0 (or by 0.0 or NaN) gives NaT. Comparisons with NaT are false, except !=.
// - timedelta64 * float and / float compute in the float's type and truncate toward zero (NaN becomes NaT,
//   out-of-range values saturate); / and // by an int truncate toward zero (NumPy and numba); timedelta64 //
//   timedelta64 floors, as NumPy (numba-cuda's own lowering of it does not compile).
// Every division divides by a safe divisor (1 in place of 0, and in place of -1 when the dividend is NaT),
// then selects: sdiv's overflow is undefined in LLVM and traps on x86, which the CPU backend runs on.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include "codegen/function_lowering.h"
#include "ir/datetime_types.h"

namespace gpujit {

namespace {

bool is_calendar(DateUnit u) { return u == DateUnit::Years || u == DateUnit::Months; }

}  // namespace

llvm::Value* FunctionLowering::datetime_cast(llvm::Value* v, const Type& from, const Type& to) {
  // The count of units (np.int64(t), int(t)): the same bits.
  if (from.is_npdatetime() && to.is_integer() && scalar_size(to.scalar) == 8) return v;
  if (!from.is_npdatetime() || !to.is_npdatetime() || is_datetime64(from.scalar) != is_datetime64(to.scalar))
    internal("no conversion from '" + from.str() + "' to '" + to.str() + "'");
  DateUnit unit = date_unit(from.scalar);
  const DateUnit target = date_unit(to.scalar);
  llvm::Value* nat = i64(kNaT);
  llvm::Value* is_nat = b_.CreateICmpEQ(v, nat);
  llvm::Value* x = v;
  if (is_datetime64(from.scalar) && is_calendar(unit) && !is_calendar(target) &&
      target != DateUnit::Generic) {
    // The first day of the year or month: Howard Hinnant's days_from_civil, for day 1 of month m (0-11) of
    // year y, with March as the first month of the computational year so that leap days come last.
    llvm::Value* year;
    llvm::Value* month;
    if (unit == DateUnit::Years) {
      year = b_.CreateAdd(x, i64(1970));
      month = i64(0);
    } else {
      llvm::Value* years =
          b_.CreateSub(b_.CreateSDiv(x, i64(12)),
                       b_.CreateZExt(b_.CreateICmpSLT(b_.CreateSRem(x, i64(12)), i64(0)), b_.getInt64Ty()));
      year = b_.CreateAdd(years, i64(1970));
      month = b_.CreateSub(x, b_.CreateMul(years, i64(12)));
    }
    llvm::Value* early = b_.CreateICmpULT(month, i64(2));  // January and February: the year before's end
    llvm::Value* y = b_.CreateSub(year, b_.CreateZExt(early, b_.getInt64Ty()));
    llvm::Value* era =
        b_.CreateSDiv(b_.CreateSelect(b_.CreateICmpSLT(y, i64(0)), b_.CreateSub(y, i64(399)), y), i64(400));
    llvm::Value* yoe = b_.CreateSub(y, b_.CreateMul(era, i64(400)));  // [0, 399]
    llvm::Value* mp = b_.CreateSelect(early, b_.CreateAdd(month, i64(10)), b_.CreateSub(month, i64(2)));
    llvm::Value* doy = b_.CreateUDiv(b_.CreateAdd(b_.CreateMul(mp, i64(153)), i64(2)), i64(5));  // [0, 365]
    llvm::Value* doe =
        b_.CreateAdd(b_.CreateSub(b_.CreateAdd(b_.CreateMul(yoe, i64(365)), b_.CreateUDiv(yoe, i64(4))),
                                  b_.CreateUDiv(yoe, i64(100))),
                     doy);
    x = b_.CreateSub(b_.CreateAdd(b_.CreateMul(era, i64(146097)), doe), i64(719468));
    unit = DateUnit::Days;
    if (target == DateUnit::Weeks) {  // whole weeks since the epoch, rounded down
      x = b_.CreateSub(b_.CreateSDiv(x, i64(7)),
                       b_.CreateZExt(b_.CreateICmpSLT(b_.CreateSRem(x, i64(7)), i64(0)), b_.getInt64Ty()));
      unit = DateUnit::Weeks;
    }
  }
  std::optional<int64_t> factor = date_unit_factor(unit, target);
  if (!factor) internal("no conversion from '" + from.str() + "' to '" + to.str() + "'");
  if (x == v && *factor == 1) return v;
  if (*factor != 1) x = b_.CreateMul(x, i64(*factor));
  return b_.CreateSelect(is_nat, nat, x);
}

llvm::Value* FunctionLowering::datetime_binary(BinOpKind op, llvm::Value* a, llvm::Value* b, const Type& ta,
                                               const Type& tb, const Type& result) {
  llvm::Value* nat = i64(kNaT);
  llvm::Value* a_nat = ta.is_npdatetime() ? b_.CreateICmpEQ(a, nat) : b_.getFalse();
  llvm::Value* b_nat = tb.is_npdatetime() ? b_.CreateICmpEQ(b, nat) : b_.getFalse();
  llvm::Value* any_nat = b_.CreateOr(a_nat, b_nat);
  // A float value as a timedelta64: NaN is NaT, the rest truncates toward zero (saturating).
  auto from_float = [&](llvm::Value* f) {
    llvm::Value* t = b_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {b_.getInt64Ty(), f->getType()}, {f});
    return b_.CreateSelect(b_.CreateFCmpUNO(f, f), nat, t);
  };
  const bool both = ta.is_npdatetime() && tb.is_npdatetime();
  switch (op) {
    case BinOpKind::Add:
    case BinOpKind::Sub:
      if (!both) break;
      return b_.CreateSelect(any_nat, nat, op == BinOpKind::Add ? b_.CreateAdd(a, b) : b_.CreateSub(a, b));
    case BinOpKind::Mul: {
      if (both) break;
      llvm::Value* td = ta.is_npdatetime() ? a : b;
      llvm::Value* n = ta.is_npdatetime() ? b : a;
      const Type& nt = ta.is_npdatetime() ? tb : ta;
      llvm::Value* r = nt.is_float() ? from_float(b_.CreateFMul(b_.CreateSIToFP(td, n->getType()), n))
                                     : b_.CreateMul(td, n);
      return b_.CreateSelect(any_nat, nat, r);
    }
    case BinOpKind::Div:
    case BinOpKind::FloorDiv: {
      if (both) {
        if (op == BinOpKind::Div) {
          llvm::Type* f64 = b_.getDoubleTy();
          llvm::Value* q = b_.CreateFDiv(b_.CreateSIToFP(a, f64), b_.CreateSIToFP(b, f64));
          return b_.CreateSelect(any_nat, llvm::ConstantFP::getNaN(f64), q);
        }
        // Floor division; 0 for a zero divisor (int_floor_div_mod's) and, as NumPy, with NaT.
        llvm::Value* safe_b = b_.CreateSelect(any_nat, i64(1), b);
        return b_.CreateSelect(any_nat, i64(0), int_floor_div_mod(a, safe_b, true, false));
      }
      if (!ta.is_npdatetime()) break;
      if (tb.is_float()) {
        // Ordered and unequal to zero: false for 0.0, -0.0 and NaN, which give NaT.
        llvm::Value* ok =
            b_.CreateAnd(b_.CreateNot(a_nat), b_.CreateFCmpONE(b, llvm::ConstantFP::get(b->getType(), 0.0)));
        llvm::Value* q = from_float(b_.CreateFDiv(b_.CreateSIToFP(a, b->getType()), b));
        return b_.CreateSelect(ok, q, nat);
      }
      llvm::Value* bad = b_.CreateOr(a_nat, b_.CreateICmpEQ(b, i64(0)));
      return b_.CreateSelect(bad, nat, b_.CreateSDiv(a, b_.CreateSelect(bad, i64(1), b)));
    }
    default:
      break;
  }
  internal(std::string("operator ") + to_string(op) + " on '" + ta.str() + "' and '" + tb.str() +
           "' giving '" + result.str() + "'");
}

llvm::Value* FunctionLowering::datetime_compare(CmpOpKind op, llvm::Value* a, llvm::Value* b) {
  llvm::Value* nat = i64(kNaT);
  llvm::Value* any_nat = b_.CreateOr(b_.CreateICmpEQ(a, nat), b_.CreateICmpEQ(b, nat));
  llvm::Value* c = nullptr;
  switch (op) {
    case CmpOpKind::Eq:
      c = b_.CreateICmpEQ(a, b);
      break;
    case CmpOpKind::NotEq:
      return b_.CreateOr(any_nat, b_.CreateICmpNE(a, b));
    case CmpOpKind::Lt:
      c = b_.CreateICmpSLT(a, b);
      break;
    case CmpOpKind::LtE:
      c = b_.CreateICmpSLE(a, b);
      break;
    case CmpOpKind::Gt:
      c = b_.CreateICmpSGT(a, b);
      break;
    case CmpOpKind::GtE:
      c = b_.CreateICmpSGE(a, b);
      break;
    default:
      internal(std::string("comparison ") + to_string(op) + " of datetime64 values");
  }
  return b_.CreateAnd(b_.CreateNot(any_nat), c);
}

}  // namespace gpujit
