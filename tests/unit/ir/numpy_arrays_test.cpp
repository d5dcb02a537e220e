// Module-level NumPy arrays the CLI evaluates (ir/numpy_arrays.h, through globals_from_module): dtypes,
// shapes and bytes as NumPy 2 gives them (the expected values were printed by NumPy), and the reasons given
// for what the CLI leaves to the Python API.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "frontend/parser.h"
#include "ir/globals.h"

namespace gpujit {
namespace {

GlobalValue global(const std::string& assignment, const std::string& name = "A") {
  auto module = parse_module(std::make_shared<SourceFile>(
      "arrays.py",
      "import numpy as np\nfrom numpy import float16, zeros\nimport gpujit as gpu\n" + assignment + "\n"));
  EXPECT_FALSE(module->errors.has_errors()) << module->errors.render();
  Diagnostics diags;
  GlobalEnv env = globals_from_module(*module, diags);
  auto it = env.find(name);
  EXPECT_NE(it, env.end()) << name;
  return it == env.end() ? GlobalValue::of_unsupported("missing") : it->second;
}

std::string reason(const std::string& assignment) {
  GlobalValue g = global(assignment);
  EXPECT_EQ(g.kind, GlobalValue::Kind::Unsupported) << assignment;
  return g.reason;
}

template <typename T>
std::vector<T> elements(const GlobalValue& g) {
  EXPECT_EQ(g.kind, GlobalValue::Kind::ConstArray) << g.reason;
  std::vector<T> out(g.bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), g.bytes.data(), out.size() * sizeof(T));
  return out;
}

TEST(NumpyArrays, ArrayOfListsHasNumpysDtypeShapeAndBytes) {
  GlobalValue g = global("A = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)");
  ASSERT_EQ(g.kind, GlobalValue::Kind::ConstArray) << g.reason;
  EXPECT_EQ(g.dtype, ScalarKind::Float32);
  EXPECT_EQ(g.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(elements<float>(g), (std::vector<float>{1, 2, 3, 4, 5, 6}));

  // Without dtype=, NumPy's promotion: ints int64, any float float64, bools bool.
  EXPECT_EQ(global("A = np.array([1, 2.5])").dtype, ScalarKind::Float64);
  EXPECT_EQ(global("A = np.array([True, 2])").dtype, ScalarKind::Int64);
  EXPECT_EQ(global("A = np.asarray((True, False))").dtype, ScalarKind::Bool);
  EXPECT_EQ(global("A = np.array([np.float32(1), np.float32(2)])").dtype, ScalarKind::Float32);
  EXPECT_EQ(global("A = np.array([])").dtype, ScalarKind::Float64);
  EXPECT_EQ(global("A = np.array([])").shape, (std::vector<int64_t>{0}));
  // Tuples, named constants and other arrays nest like lists; 'int16' and float16 name dtypes too.
  GlobalValue n = global("ROW = (4, 5)\nB = np.array([1, 2])\nA = np.array([B, ROW], 'int16')");
  EXPECT_EQ(n.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(elements<int16_t>(n), (std::vector<int16_t>{1, 2, 4, 5}));
  EXPECT_EQ(elements<int8_t>(global("A = np.array([1.9, -1.9], dtype=np.int8)")),
            (std::vector<int8_t>{1, -1}));
  EXPECT_EQ(global("A = np.array([1, 2], dtype=float)").dtype, ScalarKind::Float64);
  EXPECT_EQ(global("A = np.array([1, 2], dtype=gpu.uint8)").dtype, ScalarKind::UInt8);
}

TEST(NumpyArrays, Float16RoundsToNearestEvenFromTheDouble) {
  GlobalValue g = global(
      "A = np.array([65504, 65519.99, 65520, 1e-8, 2.0**-25, 3 * 2.0**-25, 6e-8, 0.1, -0.0, 2.0**-14, 1 / 3, "
      "-70000.0], "
      "float16)");
  EXPECT_EQ(elements<uint16_t>(g),
            (std::vector<uint16_t>{31743, 31743, 31744, 0, 0, 2, 1, 11878, 32768, 1024, 13653, 64512}));
}

TEST(NumpyArrays, ArangeMatchesNumpyBitForBit) {
  // float32: element i is start + i * delta in float arithmetic, delta = float(start + step) - float(start).
  GlobalValue f = global("A = np.arange(-1.0, 2.0, 0.1, dtype=np.float32)");
  EXPECT_EQ(elements<uint32_t>(f),
            (std::vector<uint32_t>{3212836864, 3211159142, 3209481420, 3207803698, 3206125976, 3204448252,
                                   3201092808, 3197737364, 3192704192, 3184315568, 880803840,  1036831984,
                                   1045220576, 1050253732, 1053609176, 1056964614, 1058642336, 1060320058,
                                   1061997780, 1063675502, 1065353220, 1066192080, 1067030942, 1067869804,
                                   1068708664, 1069547524, 1070386386, 1071225248, 1072064108, 1072902968}));
  std::vector<uint64_t> d = elements<uint64_t>(global("A = np.arange(0.5, 12.3, 0.7)"));
  ASSERT_EQ(d.size(), 17u);
  EXPECT_EQ(std::vector<uint64_t>(d.end() - 3, d.end()),
            (std::vector<uint64_t>{4621988002574997913u, 4622382067542392832u, 4622776132509787750u}));
  EXPECT_EQ(elements<uint8_t>(global("A = np.arange(5, 0, -2, dtype=np.uint8)")),
            (std::vector<uint8_t>{5, 3, 1}));
  EXPECT_EQ(elements<uint16_t>(global("A = np.arange(0, 1, 0.25, dtype=float16)")),
            (std::vector<uint16_t>{0, 13312, 14336, 14848}));
  GlobalValue i = global("A = np.arange(3, 9, 2)");
  EXPECT_EQ(i.dtype, ScalarKind::Int64);
  EXPECT_EQ(elements<int64_t>(i), (std::vector<int64_t>{3, 5, 7}));
  EXPECT_EQ(global("A = np.arange(0)").shape, (std::vector<int64_t>{0}));
}

TEST(NumpyArrays, FilledArraysAndMethods) {
  GlobalValue z = global("A = zeros((2, 3), dtype=np.int32)");
  EXPECT_EQ(z.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(elements<int32_t>(z), std::vector<int32_t>(6, 0));
  EXPECT_EQ(elements<double>(global("A = np.ones(2)")), (std::vector<double>{1, 1}));
  GlobalValue f = global("A = np.full(3, 7)");
  EXPECT_EQ(f.dtype, ScalarKind::Int64);
  EXPECT_EQ(elements<int64_t>(f), (std::vector<int64_t>{7, 7, 7}));
  EXPECT_EQ(global("A = np.full((2,), 0.5, np.float32)").dtype, ScalarKind::Float32);

  GlobalValue r = global("A = np.arange(6).reshape(2, -1).astype(np.float32)");
  EXPECT_EQ(r.dtype, ScalarKind::Float32);
  EXPECT_EQ(r.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(elements<float>(r), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(global("B = np.zeros(4)\nA = B.reshape((2, 2))").shape, (std::vector<int64_t>{2, 2}));
}

TEST(NumpyArrays, WhatTheCliLeavesToPythonSaysWhy) {
  EXPECT_EQ(
      reason("A = np.linspace(0, 1, 5)"),
      "its value is a call to 'np.linspace', which the gpujit CLI does not evaluate (it reads np.array, "
      "np.asarray, np.arange, np.zeros, np.ones and np.full with constant arguments); compile the kernel "
      "from Python to capture this array");
  EXPECT_EQ(reason("A = np.array([[1, 2], [3]])"),
            "np.array() of nested sequences of different lengths (a ragged array) is not supported");
  EXPECT_EQ(reason("A = np.array([300], dtype=np.uint8)"), "300 is out of bounds for uint8");
  EXPECT_EQ(reason("A = np.full(2, -1, np.uint32)"), "-1 is out of bounds for uint32");
  EXPECT_EQ(
      reason("A = np.zeros(10**9)"),
      "np.zeros(...) is a float64 array of shape (1000000000,), more than the 65536 bytes of GPU constant "
      "memory; pass it to the kernel as an argument instead");
  EXPECT_EQ(reason("A = np.arange(0, 1, 0)"), "np.arange() step must not be zero");
  EXPECT_EQ(reason("A = np.zeros(3, dtype=np.complex64)"),
            "np.zeros() of dtype complex64: complex constant arrays are not supported yet");
  EXPECT_EQ(
      reason("A = np.zeros(3, order='F')"),
      "np.zeros() with the argument 'order' is not evaluated by the gpujit CLI; compile the kernel from "
      "Python to capture this array");
  EXPECT_EQ(reason("A = np.arange(6).reshape(4, -1)"),
            "cannot reshape an array of size 6 into shape (4, -1)");
  EXPECT_EQ(reason("A = np.ones(3).tolist()"),
            "its value calls the array method 'tolist', which the gpujit CLI does not evaluate (it reads "
            ".astype() and .reshape()); compile the kernel from Python to capture this array");
  EXPECT_EQ(reason("A = [1, 2]"),
            "its value is a list; kernels read tuples (1, 2, 3) and NumPy arrays (np.array([1, 2, 3]))");
  EXPECT_EQ(reason("A = np.array([x for x in range(3)])"),
            "its value is outside the kernel language (the gpujit CLI reads module-level numbers, tuples, "
            "dtypes, modules and NumPy arrays made by np.array, np.arange, np.zeros, np.ones or np.full with "
            "constant arguments; compile the kernel from Python to capture other values)");
}

}  // namespace
}  // namespace gpujit
