// Semantic analysis of numba-cuda's integer and float intrinsics (cuda.popc, brev, clz, ffs, fma, cbrt,
// selp, nanosleep), of gpujit's assume_aligned(ary, n), of the integer method i.bit_count() and of print() inside kernels.
//
// Typing follows numba-cuda's cudadecl.py: popc and clz return the operand's own integer type, ffs returns
// uint32, brev works on uint32 or uint64 (64-bit operands give uint64, narrower ones uint32), fma and cbrt
// compute in float32 when their operands are float32 (or weak constants beside one) and in float64
// otherwise, selp(p, a, b) gives the common type of a and b. nanosleep(ns) takes an integer as uint32 and
// gives no value. i.bit_count() is numba-cuda's cuda.popc(i): the receiver's own integer type; operand_types
// holds the receiver's type (the call itself has no arguments).
//
// print() takes numbers, bools and string literals (or module-level string constants). Like numba-cuda it
// prints them space-separated with a newline, integers as int64/uint64 and floats as float64 (C's %f), so
// operand_types[call] holds, per argument, int64, uint64, float64 or bool, and none for a string, whose text
// is recorded in `constants` (ConstValue::Kind::String). CUDA's printf takes at most 32 values per call.
#include <fmt/format.h>

#include "ir/sema_internal.h"

namespace gpujit {

namespace {

constexpr size_t kMaxPrintValues = 32;

// bfloat16 is not among them: it has its own operators and functions (numba.cuda.bf16) and converts only
// explicitly, see ir/type_rules.h.
bool is_number(const Type& t) {
  return t.is_scalar() && !t.is_complex() && !t.is_bfloat16() && !t.is_npdatetime() && !t.is_fp8();
}

}  // namespace

ExprResult FunctionAnalyzer::intrinsic_call(const CallExpr& e, const BuiltinInfo& b,
                                            const std::vector<ExprResult>& args) {
  std::string name = path_of(*e.func);
  auto done = [&](std::vector<Type> operands, Type result) {
    if (checking_) fn_.operand_types[&e] = std::move(operands);
    return record(e, ExprResult::of_value(std::move(result)));
  };
  auto require = [&](size_t i, bool ok, const char* what) {
    if (!ok) {
      error(e.args[i]->range, fmt::format("{}() argument {} must be {}, got {}{}", name, i + 1, what,
                                          args[i].type.str(), origin_of(*e.args[i])));
    }
    return ok;
  };
  std::vector<Operand> ops;
  for (const ExprResult& a : args) ops.push_back(operand(a));

  switch (b.id) {
    case BuiltinId::BitCount: {
      // i.bit_count(): the receiver is the callee's base, evaluated again for its type.
      const auto* attr = e.func->as<AttributeExpr>();
      if (!attr) throw InternalError("bit_count() without a receiver");
      ExprResult i = value(*attr->value);
      if (!i.is_value()) return i;
      if (!i.type.is_integer()) {
        error(attr->attr_range, fmt::format("bit_count() is a method of integers, not of {}{}", i.type.str(),
                                            origin_of(*attr->value)));
        return ExprResult::error();
      }
      return done({i.type}, i.type);
    }
    case BuiltinId::Nanosleep:
      if (!require(0, args[0].type.is_integer(), "an integer (nanoseconds)")) return ExprResult::error();
      return done({Type::scalar_of(ScalarKind::UInt32)}, Type::void_());
    case BuiltinId::AssumeAligned: {
      // The alignment is a constant, recorded as shared.array's is; the array is not converted.
      if (!require(0, args[0].type.is_array(), "an array")) return ExprResult::error();
      unsigned alignment = 0;
      if (!array_alignment(*e.args[1], "assume_aligned()", &alignment)) return ExprResult::error();
      if (alignment == 0 && checking_) {
        error(e.args[1]->range, "assume_aligned() alignment must be a power of two (a constant integer such as 16), got None");
        return ExprResult::error();
      }
      if (checking_) fn_.array_alignments[&e] = alignment;
      return done({args[0].type, Type::scalar_of(ScalarKind::Int64)}, Type::void_());
    }
    case BuiltinId::FromBuffer:
      // numba types cffi's from_buffer of an array as a CPointer of its dtype; any layout (a slice x[i:] too).
      if (!require(0, args[0].type.is_array() && !args[0].type.record, "an array of numbers"))
        return ExprResult::error();
      return done({args[0].type}, Type::pointer_to(args[0].type.scalar));
    case BuiltinId::Popc:
    case BuiltinId::Clz:
      if (!require(0, args[0].type.is_integer(), "an integer")) return ExprResult::error();
      return done({args[0].type}, args[0].type);
    case BuiltinId::Ffs:
      if (!require(0, args[0].type.is_integer(), "an integer")) return ExprResult::error();
      return done({args[0].type}, Type::scalar_of(ScalarKind::UInt32));
    case BuiltinId::Brev: {
      if (!require(0, args[0].type.is_integer(), "an integer")) return ExprResult::error();
      Type u =
          Type::scalar_of(scalar_size(args[0].type.scalar) == 8 ? ScalarKind::UInt64 : ScalarKind::UInt32);
      return done({u}, u);
    }
    case BuiltinId::Fma:
    case BuiltinId::Cbrt: {
      for (size_t i = 0; i < args.size(); ++i) {
        if (!require(i, is_number(args[i].type), "a number")) return ExprResult::error();
      }
      ScalarKind k = math_float_kind(ops);
      if (k == ScalarKind::Float16) k = ScalarKind::Float32;
      Type f = Type::scalar_of(k);
      return done(std::vector<Type>(args.size(), f), f);
    }
    case BuiltinId::Selp: {
      if (!require(0, has_truth_value(args[0].type), "a predicate (a number or bool)"))
        return ExprResult::error();
      for (size_t i = 1; i < 3; ++i) {
        if (!require(i, is_number(args[i].type), "a number")) return ExprResult::error();
      }
      Type t = common_numeric_type({ops[1], ops[2]});
      if (!t.is_valid()) {
        error(e.range, fmt::format("{}() cannot choose between {} and {}", name, args[1].type.str(),
                                   args[2].type.str()));
        return ExprResult::error();
      }
      return done({Type::scalar_of(ScalarKind::Bool), t, t}, t);
    }
    default:
      throw InternalError(fmt::format("intrinsic '{}' has no typing rule", b.qualified_name()));
  }
}

ExprResult FunctionAnalyzer::print_call(const CallExpr& e, const BuiltinInfo&) {
  bool unknown = false, failed = false;
  for (const Keyword& k : e.keywords) {
    error(k.name_range, fmt::format("print() keyword arguments ('{}') are not supported in kernels; print "
                                    "joins its arguments with spaces and ends the line",
                                    k.name));
    failed = true;
  }
  std::vector<Type> operands;
  size_t values = 0;
  for (const ExprPtr& a : e.args) {
    // A string literal, or a module-level string constant, is text of the format itself.
    std::optional<std::string> text;
    if (const auto* s = a->as<StringLitExpr>()) text = s->value;
    if (const auto* n = a->as<NameExpr>(); n && !is_local_name(n->id)) {
      auto g = program_.globals().find(n->id);
      if (g != program_.globals().end() && g->second.kind == GlobalValue::Kind::Constant &&
          g->second.constant.kind == ConstValue::Kind::String) {
        text = g->second.constant.s;
      }
    }
    if (text) {
      if (checking_) {
        ConstValue c;
        c.kind = ConstValue::Kind::String;
        c.s = *text;
        fn_.constants[a.get()] = c;
      }
      operands.push_back(Type::none());
      continue;
    }
    ExprResult r = value(*a);
    if (r.what == ExprResult::What::Unknown) unknown = true;
    if (!r.is_value()) {
      failed = true;
      continue;
    }
    const Type& t = r.type;
    if (t.is_bfloat16()) {  // printed as its float value, exactly
      operands.push_back(Type::scalar_of(ScalarKind::Float64));
      ++values;
      continue;
    }
    if (t.is_vector() && t.dim3) {  // cuda.threadIdx whole: "(x, y, z)", as numba-cuda prints a Dim3
      operands.push_back(t);
      values += 3;
      continue;
    }
    if (!is_number(t)) {
      error(a->range,
            fmt::format("print() in a kernel takes numbers and strings, got {}{}", t.str(), origin_of(*a)));
      failed = true;
      continue;
    }
    ScalarKind k = t.is_bool()             ? ScalarKind::Bool
                   : t.is_float()          ? ScalarKind::Float64
                   : is_unsigned(t.scalar) ? ScalarKind::UInt64
                                           : ScalarKind::Int64;
    operands.push_back(Type::scalar_of(k));
    ++values;
  }
  if (unknown) return ExprResult::unknown();
  if (failed) return ExprResult::error();
  if (values > kMaxPrintValues) {
    error(e.range,
          fmt::format("print() in a kernel prints at most {} values per call (CUDA's printf limit), got "
                      "{}; split it into several calls",
                      kMaxPrintValues, values));
    return ExprResult::error();
  }
  if (checking_) fn_.operand_types[&e] = std::move(operands);
  return record(e, ExprResult::of_value(Type::void_()));
}

}  // namespace gpujit
