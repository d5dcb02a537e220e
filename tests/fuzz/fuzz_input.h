// What the fuzz targets of tests/fuzz read from one fuzzer input, and how they pick a kernel and its signature.
//
// An input is kernel source text, optionally followed by a NUL byte and a trailer that drives the compile:
//
//   <source text> \0 <options byte> <architecture byte> <kernel name> \n <signature text or raw bytes>
//
// The options byte sets fastmath (bit 0), bounds checking (1), line info (2), DWARF debug info (3), the
// optimization level (bits 4-5) and the entry kind (bits 6-7: 0 and 1 a kernel, 2 a C-ABI device function, 3
// a numba-ABI one). The kernel is the function of that name, else the file's first @jit function, else its
// first function. The signature is the text after the newline when parse_signature() accepts it; otherwise,
// and for every parameter the text does not cover, types are derived from those bytes (FuzzedDataProvider), so
// the fuzzer reaches every kind of argument (scalars, arrays of any dtype, rank and layout, tuples, pointers)
// without having to spell a signature. Inputs without a trailer (plain source files) take float32[:] for
// every parameter. tests/fuzz/make_corpus.py writes seeds in this form from the repository's kernels.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/ast.h"
#include "ir/types.h"

namespace gpujit::fuzz {

struct FuzzInput {
  std::string source;
  uint8_t options = 0;
  uint8_t arch = 0;
  std::string kernel_name;
  std::string signature;  // the trailer's rest: signature text or raw bytes
};

inline FuzzInput split_input(const uint8_t* data, size_t size) {
  FuzzInput in;
  std::string_view all(reinterpret_cast<const char*>(data), size);
  size_t nul = all.find('\0');
  in.source = std::string(all.substr(0, nul));
  if (nul == std::string_view::npos) return in;
  std::string_view trailer = all.substr(nul + 1);
  if (!trailer.empty()) in.options = static_cast<uint8_t>(trailer[0]), trailer.remove_prefix(1);
  if (!trailer.empty()) in.arch = static_cast<uint8_t>(trailer[0]), trailer.remove_prefix(1);
  size_t newline = trailer.find('\n');
  in.kernel_name = std::string(trailer.substr(0, newline));
  if (newline != std::string_view::npos) in.signature = std::string(trailer.substr(newline + 1));
  return in;
}

inline bool has_jit_decorator(const FunctionDef& fn) {
  for (const ExprPtr& d : fn.decorators) {
    const Expr* e = d.get();
    if (const auto* call = e->as<CallExpr>()) e = call->func.get();
    if (const auto* name = e->as<NameExpr>(); name && name->id == "jit") return true;
    if (const auto* attr = e->as<AttributeExpr>(); attr && attr->attr == "jit") return true;
  }
  return false;
}

/// The function to compile, or nullptr when the module has none.
inline const FunctionDef* choose_function(const Module& module, const std::string& name) {
  if (const FunctionDef* fn = module.find_function(name)) return fn;
  for (const FunctionDefPtr& fn : module.functions) {
    if (has_jit_decorator(*fn)) return fn.get();
  }
  return module.functions.empty() ? nullptr : module.functions.front().get();
}

/// Float32 first: an exhausted FuzzedDataProvider yields index 0.
constexpr ScalarKind kScalars[] = {
    ScalarKind::Float32, ScalarKind::Int64,   ScalarKind::Float64,   ScalarKind::Int32,      ScalarKind::Bool,
    ScalarKind::UInt8,   ScalarKind::Int8,    ScalarKind::Int16,     ScalarKind::UInt16,     ScalarKind::UInt32,
    ScalarKind::UInt64,  ScalarKind::Float16, ScalarKind::Complex64, ScalarKind::Complex128, ScalarKind::BFloat16,
};

inline ScalarKind random_scalar(FuzzedDataProvider& p) {
  return kScalars[p.ConsumeIntegralInRange<size_t>(0, std::size(kScalars) - 1)];
}

/// A type a kernel argument can have; kind 0 (what an exhausted provider gives) is a 1-D array of any layout.
inline Type random_type(FuzzedDataProvider& p, int depth = 0) {
  switch (p.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:
    case 1: {
      ScalarKind dtype = random_scalar(p);
      unsigned ndim = p.ConsumeIntegralInRange<unsigned>(1, 3);
      Layout layout = p.ConsumeBool() ? Layout::C : Layout::Any;
      return Type::array_of(dtype, ndim, layout, /*index32=*/p.ConsumeBool());
    }
    case 2:
    case 3:
      return Type::scalar_of(random_scalar(p));
    case 4: {
      if (depth >= 2) return Type::scalar_of(random_scalar(p));
      std::vector<Type> elements(p.ConsumeIntegralInRange<size_t>(0, 4));
      for (Type& t : elements) t = random_type(p, depth + 1);
      return Type::tuple_of(std::move(elements));
    }
    default:
      return Type::pointer_to(random_scalar(p));
  }
}

/// The signature for `fn`: as many parameter types as it has parameters.
inline Signature choose_signature(const FuzzInput& in, const FunctionDef& fn) {
  std::string error;
  Signature sig;
  if (std::optional<Signature> parsed = parse_signature(in.signature, &error)) sig = *parsed;
  FuzzedDataProvider p(reinterpret_cast<const uint8_t*>(in.signature.data()), in.signature.size());
  if (sig.params.size() > fn.params.size()) sig.params.resize(fn.params.size());
  while (sig.params.size() < fn.params.size()) sig.params.push_back(random_type(p));
  return sig;
}

inline const char* choose_arch(uint8_t byte) {
  static const char* const kArchs[] = {"sm_80", "sm_75", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_120"};
  return kArchs[byte % std::size(kArchs)];
}

}  // namespace gpujit::fuzz
