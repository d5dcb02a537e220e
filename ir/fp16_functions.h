// numba-cuda's float16 intrinsics: `cuda.fp16.hadd(a, b)`, `cuda.fp16.hsin(x)` ... (numba.cuda.fp16).
//
// Every function takes float16 operands (other numbers convert) and returns float16, or bool for the
// comparisons (heq, hlt ...). Arithmetic, fma, min/max and the comparisons are float16 operations; the
// math functions (hsin, hexp2, hrsqrt ...) compute in float32 and round the result to float16 once, which is
// what CUDA's cuda_fp16.h does. The rows are builtins of the Fp16 scope with id Fp16Call, kept here as
// libdevice's are; codegen dispatches on the row's name (codegen/builtin_lowering.cpp).
#pragma once

#include <string_view>
#include <vector>

#include "ir/builtins.h"

namespace gpujit {

/// The builtin row of fp16.<name>, or nullptr.
const BuiltinInfo* find_fp16_builtin(std::string_view name);
/// Every fp16 function's name, for "did you mean" suggestions.
std::vector<std::string_view> fp16_names();
/// Whether fp16.<name> is a comparison (its result is bool).
bool fp16_is_comparison(std::string_view name);

}  // namespace gpujit
